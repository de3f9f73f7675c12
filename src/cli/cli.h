/* cli/: the xray command's parts. */
#ifndef XRAY__CLI_H
#define XRAY__CLI_H

/* cli/outfile.c: the command's output files.  A regular file, or a name
 * not yet taken, is written to a temporary beside it and renamed into
 * place by xray_cli_out_commit; a device or FIFO is written through; a
 * path that cannot be written ends xray (exit 2) at xray_cli_out_open,
 * before anything is measured.  xray_cli_out_guard removes the
 * temporaries on every exit path, signals included.  "-" is the standard
 * output.  Commit: 0, or -1 with a message naming name. */
#include <stdio.h>
enum xray_cli_out {
  XRAY_CLI_OUT_RESULTS,
  XRAY_CLI_OUT_TRACE,
  XRAY_CLI_OUT_MACHINE, /* a recording's machine and cpuinfo files */
  XRAY_CLI_OUT_CPUINFO,
  XRAY_CLI_OUT_PLOT_INDEX, /* a plot's plots.txt and the image drawn */
  XRAY_CLI_OUT_PLOT_IMAGE
};
void xray_cli_out_guard(void);
FILE *xray_cli_out_open(enum xray_cli_out which, const char *path);
FILE *xray_cli_out_file(enum xray_cli_out which);
int xray_cli_out_commit(enum xray_cli_out which, const char *name);
/* 0, or 1 with a message if what went to the standard output was lost. */
int xray_cli_stdout_done(void);

/* cli/given.c: xray --given=FILE (- for the standard input): the values
 * FILE gives, in xray's --format=shell (see given.c), into *out (free
 * it), *n of them, each with its line for messages.  -1 with a message
 * naming the file, the line and what to fix. */
struct xray_cli_given {
  char name[48];
  double value;
  int unconfirmed;
  long line;
};
int xray_cli_given_read(const char *path, struct xray_cli_given **out, size_t *n, char *err,
                        size_t len);
/* ... and the numbers of the command line: s whole as a finite decimal
 * number into *v (no hexadecimal, inf or nan, no blanks); 0, or -1. */
int xray_cli_decimal(const char *s, double *v);

/* cli/usage.c: xray --help's text, naming the program prog. */
void xray_cli_usage(FILE *f, const char *prog);

/* cli/icsim.c: `xray icsim ...`, argv[0] being "icsim"; the exit status. */
int xray_cli_icsim(int argc, char **argv, const char *prog);

/* cli/counters.c: `xray counters ...`, argv[0] being "counters". */
int xray_cli_counters(int argc, char **argv, const char *prog);

/* cli/plot.c: `xray --plot=DIR`: the curves of the trace (rewound and
 * read) drawn into DIR/<label>.svg and .png, listed in DIR/plots.txt;
 * own[] says which values of rep each probe set.  Files are opened and
 * committed through io (cli/xray.c: replaced atomically).  0, or -1 if a
 * file could not be written (or xray was built without cairo). */
#include <stdio.h>
#include "xray.h"
struct xray_cli_owned {
  const char *probe;
  size_t first, last;
};
struct xray_cli_files { /* which: 0 the index, 1 an image */
  FILE *(*open)(int which, const char *path);
  int (*commit)(int which, const char *path);
};
/* cli/plot-html.c: DIR/index.html, every value of rep in one table and
 * every figure drawn (DIR/<name>.svg) with the values it marks
 * (space-separated names) and its caption; written through io's index
 * slot.  0, or -1 if it could not be written. */
struct xray_cli_figure {
  char name[64], marks[512], caption[1024];
};
int xray_cli_plot_html(const char *dir, const xray_report *rep, const struct xray_cli_figure *fig,
                       size_t nfig, const struct xray_cli_files *io);
int xray_cli_plot(const char *dir, FILE *trace, const xray_report *rep,
                  const struct xray_cli_owned *own, size_t nown, const struct xray_cli_files *io);

#endif
