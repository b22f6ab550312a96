set terminal svg size 1200,440 dynamic noenhanced font 'sans,12' background '#ffffff'
set output 'docs/images/r1-serving-schedules.svg'
set multiplot title 'DeepSeek-R1 on sn40l-16, 16K context, 4K prompts, 512 outputs: prefill-first against chunked' font 'sans,13'
set grid
set tmargin at screen 0.86
set bmargin at screen 0.14
set xlabel 'request rate (requests/s)'
set lmargin at screen 0.07
set rmargin at screen 0.38
unset key
set logscale y
set ylabel 'TTFT p99 (s)'
plot 'docs/images/r1-serving-schedules.dat' index 0 using 1:2 with linespoints ps 1 lc rgb '#0072B2' pt 7 lw 3.0 dt 1 notitle, 'docs/images/r1-serving-schedules.dat' index 1 using 1:2 with linespoints ps 1 lc rgb '#D55E00' pt 5 lw 2.7 dt (10,5) notitle, 'docs/images/r1-serving-schedules.dat' index 2 using 1:2 with linespoints ps 1 lc rgb '#009E73' pt 9 lw 2.5 dt (3,4) notitle, 'docs/images/r1-serving-schedules.dat' index 3 using 1:2 with linespoints ps 1 lc rgb '#CC79A7' pt 13 lw 2.3 dt (12,4,3,4) notitle
unset logscale y
set lmargin at screen 0.46
set rmargin at screen 0.77
set yrange [0:*]
set ylabel 'largest gap between tokens (ms)'
set key at screen 0.79,0.86 left top Left reverse samplen 5 spacing 1.25
plot 'docs/images/r1-serving-schedules.dat' index 0 using 1:3 with linespoints ps 1 lc rgb '#0072B2' pt 7 lw 3.0 dt 1 title 'prefill-first', 'docs/images/r1-serving-schedules.dat' index 1 using 1:3 with linespoints ps 1 lc rgb '#D55E00' pt 5 lw 2.7 dt (10,5) title 'chunked, 512-token chunks', 'docs/images/r1-serving-schedules.dat' index 2 using 1:3 with linespoints ps 1 lc rgb '#009E73' pt 9 lw 2.5 dt (3,4) title 'chunked, 1024-token chunks', 'docs/images/r1-serving-schedules.dat' index 3 using 1:3 with linespoints ps 1 lc rgb '#CC79A7' pt 13 lw 2.3 dt (12,4,3,4) title 'chunked, 2048-token chunks'
unset multiplot
