#!/usr/bin/env bash
# A single-node Slurm in a folder, for tests/Tools/slurm.test:
#   slurm_cluster.sh start DIR     munged, slurmctld and slurmd on localhost,
#                                  configured in DIR; prints the SLURM_CONF
#   slurm_cluster.sh stop DIR      stops them
# Ports and the munge socket are the folder's own, so it does not disturb a
# Slurm the machine may run. Needs root (slurmd starts jobs as their user).
set -euo pipefail
cmd=$1
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
stop() {
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
}
if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
mkdir -p "$dir"/munge "$dir"/state "$dir"/spool "$dir"/log
mungekey -c -k "$dir/munge/munge.key" -b 1024 -f
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/sock" --key-file="$dir/munge/munge.key" \
  --log-file="$dir/log/munged.log" --pid-file="$dir/munge/pid" \
  --seed-file="$dir/munge/seed"
# Two free ports above 20000, from the kernel.
read -r p1 p2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cat > "$conf" <<CONF
ClusterName=snapflow-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
SlurmctldPort=$p1
SlurmdPort=$p2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$conf
slurmctld -c
slurmd
# Ready when the node is idle.
for _ in $(seq 60); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "$conf"
    exit 0
  fi
  sleep 1
done
echo "slurm_cluster.sh: the node did not come up; logs in $dir/log" >&2
stop
exit 1
