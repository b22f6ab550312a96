set terminal svg size 1080,760 dynamic noenhanced font 'sans,12' background '#ffffff'
set output 'docs/images/serving-models-hbm.svg'
set multiplot layout 3,1 title 'HBM per socket by model, four models on sn40l-16 (128K context), first 600 s of the load'
set grid
set xrange [0:600]
set yrange [0:70]
set ylabel 'GiB per socket'
set rmargin 34
set style fill solid 0.8 noborder
set title 'static'
set key outside right top Left reverse
plot 'docs/images/serving-models-hbm.dat' index 0 using 1:(0):2 with filledcurves fc rgb '#0072B2' title 'llama-3.1-70b', \
     'docs/images/serving-models-hbm.dat' index 0 using 1:2:3 with filledcurves fc rgb '#D55E00' title 'llama-3.1-8b', \
     'docs/images/serving-models-hbm.dat' index 0 using 1:3:4 with filledcurves fc rgb '#009E73' title 'deepseek-v2-lite', \
     'docs/images/serving-models-hbm.dat' index 0 using 1:4:5 with filledcurves fc rgb '#CC79A7' title 'llama-3.2-1b', \
     64.0 with lines lc rgb '#000000' dt 2 lw 2 title 'HBM capacity per socket'
set title 'on-demand'
unset key
plot 'docs/images/serving-models-hbm.dat' index 1 using 1:(0):2 with filledcurves fc rgb '#0072B2' title 'llama-3.1-70b', \
     'docs/images/serving-models-hbm.dat' index 1 using 1:2:3 with filledcurves fc rgb '#D55E00' title 'llama-3.1-8b', \
     'docs/images/serving-models-hbm.dat' index 1 using 1:3:4 with filledcurves fc rgb '#009E73' title 'deepseek-v2-lite', \
     'docs/images/serving-models-hbm.dat' index 1 using 1:4:5 with filledcurves fc rgb '#CC79A7' title 'llama-3.2-1b', \
     64.0 with lines lc rgb '#000000' dt 2 lw 2 title 'HBM capacity per socket'
set xlabel 'time (s)'
set title 'prewarm'
unset key
plot 'docs/images/serving-models-hbm.dat' index 2 using 1:(0):2 with filledcurves fc rgb '#0072B2' title 'llama-3.1-70b', \
     'docs/images/serving-models-hbm.dat' index 2 using 1:2:3 with filledcurves fc rgb '#D55E00' title 'llama-3.1-8b', \
     'docs/images/serving-models-hbm.dat' index 2 using 1:3:4 with filledcurves fc rgb '#009E73' title 'deepseek-v2-lite', \
     'docs/images/serving-models-hbm.dat' index 2 using 1:4:5 with filledcurves fc rgb '#CC79A7' title 'llama-3.2-1b', \
     64.0 with lines lc rgb '#000000' dt 2 lw 2 title 'HBM capacity per socket'
unset multiplot
