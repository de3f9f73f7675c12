/* xray --help: the usage text. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__DEFAULT_CC */
#endif
#include "cli/cli.h"
#include "xray.h"

#ifndef XRAY__DEFAULT_CC
#define XRAY__DEFAULT_CC "cc" /* the engine a consumer's configure builds */
#endif

void
xray_cli_usage(FILE *f, const char *prog)
{
  size_t i;
  const xray_probe *p;

  fprintf(f,
          "Usage: %s [OPTION]... [PROBE]...\n"
          "  or:  %s counters [OPTION]...     (hardware events; see --help there)\n"
#ifdef XRAY__WITH_ICSIM
          "  or:  %s icsim [OPTION]... FILE [FUNCTION]...\n"
#endif
          "Measure hardware parameters by timing generated micro-benchmarks\n"
          "(the X-Ray method).  With no PROBE, run every probe.\n"
          "\n"
          "  -f, --format=FORMAT   text (default), json, shell or header\n"
          "  -o, --output=FILE     write the results to FILE (replaced atomically)\n"
          "  -t, --trace=FILE      write every measured point as CSV\n"
          "                        (probe, kernel, x, cycles)\n"
          "      --record=DIR      record this machine for --replay: run the probes\n"
          "                        --repeat times (default 3), every point to DIR\n"
          "      --repeat=N        runs of the probes for --record (1 to 20)\n"
          "      --replay=DIR      answer the probes from the recording in DIR\n"
          "      --plot=DIR        draw every curve the probes measured into DIR: an\n"
          "                        SVG and a PNG a probe, plots.txt and index.html,\n"
          "                        every value and curve on one page (needs cairo)\n"
          "      --kind=N          on a machine of several kinds of core, measure kind N\n"
          "                        only (default: every kind, the fastest as kind 1)\n"
          "      --given=FILE      take the values in FILE (an earlier run's\n"
          "                        --format=shell output) as given: a probe that\n"
          "                        rests on one uses it instead of measuring it\n"
          "  -b, --budget=SECONDS  time one probe may spend (default 2)\n"
          "  -s, --simulate=SPEC   measure a simulated machine instead of this one;\n"
          "                        SPEC is a comma-separated list of items:\n"
          "                          l1i=SIZE:WAYS:LINE[:lru|plru|random]\n"
          "                          uop=OPS  penalty=CYCLES  noise=PERCENT\n"
          "                          spikes=PERCENT  seed=N\n"
          "                          l1d= l2= l3= l4=SIZE:WAYS:LINE  tlb1= tlb2=ENTRIES:WAYS:PAGE\n"
          "                          colour=PAGE  tenant=LEVEL:RATE[:SWING]\n"
          "                          clock=MHZ tsc=MHZ int=A:M:D fp=A:M:D:F regs=I:F:V\n"
          "                          fma=yes|no contract=yes|no cpus=N smt=K\n"
          "                          share1..share4=CPUS c2c=CYCLES adjline=BYTES[:PCT]\n"
          "                          branch=PENALTY[:HISTORY[:WINDOW]] bselect=yes|no\n"
          "                          pmu=SEED[:EVENTS] (see xray(1))\n"
          "                        SIZE takes K and M suffixes, e.g. l1i=48K:12:64\n"
          "  -k, --kernel=KIND     machine-code (x86-64), c (generated C compiled for\n"
          "                        each size: portable and slow), or auto (default:\n"
          "                        machine code where the ISA has it)\n"
          "      --cc=CC           compiler for C kernels (default: $CC, else " XRAY__DEFAULT_CC
          ")\n"
          "      --cflags=FLAGS    its flags (default: $CFLAGS, else -O2)\n"
          "      --ops=TYPE:OP,... operations for latency and throughput, e.g.\n"
          "                        double:*,long:+,__m256d:fma (OP: + - * / fma)\n"
          "      --types=TYPE,...  types for registers, e.g. long,double,__m256d\n"
          "  -l, --list            list the probes and exit\n"
          "  -h, --help            display this help and exit\n"
          "  -V, --version         output version information and exit\n"
          "\nProbes:\n",
          prog, prog
#ifdef XRAY__WITH_ICSIM
          ,
          prog
#endif
  );
  for (i = 0; (p = xray_probe_at(i)); i++)
    fprintf(f, "  %-10s %s\n", p->name, p->summary);
  fprintf(f,
          "\nValues measured on this machine are labelled 'measured'; the operating\n"
          "system's view is printed beside them and never replaces them.\n"
          "\nExit status: 0 on success, 1 if a probe failed, 2 on a usage error.\n");
}
