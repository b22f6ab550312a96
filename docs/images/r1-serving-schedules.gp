set terminal svg size 1000,420 dynamic noenhanced font 'sans,12' background '#ffffff'
set output 'docs/images/r1-serving-schedules.svg'
set multiplot layout 1,2 title 'DeepSeek-R1 on sn40l-16, 16K context, 4K prompts, 512 outputs: prefill-first against chunked'
set grid
set key top left
set xlabel 'requests/s'
set logscale y
set ylabel 'TTFT p99 (s)'
plot 'docs/images/r1-serving-schedules.dat' index 0 using 1:2 with linespoints lw 2 title 'prefill-first', 'docs/images/r1-serving-schedules.dat' index 1 using 1:2 with linespoints lw 2 title 'chunked, 512-token chunks', 'docs/images/r1-serving-schedules.dat' index 2 using 1:2 with linespoints lw 2 title 'chunked, 1024-token chunks', 'docs/images/r1-serving-schedules.dat' index 3 using 1:2 with linespoints lw 2 title 'chunked, 2048-token chunks'
unset logscale y
set yrange [0:*]
set ylabel 'largest gap between tokens (ms)'
plot 'docs/images/r1-serving-schedules.dat' index 0 using 1:3 with linespoints lw 2 title 'prefill-first', 'docs/images/r1-serving-schedules.dat' index 1 using 1:3 with linespoints lw 2 title 'chunked, 512-token chunks', 'docs/images/r1-serving-schedules.dat' index 2 using 1:3 with linespoints lw 2 title 'chunked, 1024-token chunks', 'docs/images/r1-serving-schedules.dat' index 3 using 1:3 with linespoints lw 2 title 'chunked, 2048-token chunks'
unset multiplot
