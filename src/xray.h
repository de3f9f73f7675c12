/* libxray: hardware parameters measured by timing generated
 * micro-benchmarks (the X-Ray method of Yotov, Pingali and Stodghill).
 *
 *   char err[256];
 *   xray_machine *m = xray_machine_real(err, sizeof err);
 *   xray_report r;
 *   xray_report_init(&r);
 *   xray_probe_run(xray_probe_find("icache"), m, &r);
 *   xray_report_write(&r, stdout, XRAY_FORMAT_JSON);
 *   xray_machine_free(m);
 */
#ifndef XRAY_H
#define XRAY_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XRAY_VERSION "0.1.0"
#define XRAY_API_VERSION 1

const char *xray_version(void);

/* --- machines: where measurements are taken ------------------------------ */

typedef struct xray_machine xray_machine;

/* This machine.  Calibrates the tick source and the core clock (~50 ms). */
xray_machine *xray_machine_real(char *err, size_t errlen);

/* A simulated machine, e.g. "l1i=48K:12:64,uop=4096" (see xray(1)).
 * Returns NULL and a message naming what to fix on a malformed spec. */
xray_machine *xray_machine_simulated(const char *spec, char *err, size_t errlen);

void xray_machine_free(xray_machine *m);

/* Which kernels time code: machine code where the ISA has a backend
 * (x86-64), else the portable C path (generated C compiled with the
 * compiler set below and run as a program; slow, labelled in results). */
typedef enum xray_kernel {
  XRAY_KERNEL_AUTO,
  XRAY_KERNEL_MACHINE_CODE,
  XRAY_KERNEL_C
} xray_kernel;

/* -1 if the kernel kind cannot run on this machine. */
int xray_machine_set_kernel(xray_machine *m, xray_kernel k);
/* Compiler and flags for C kernels (default: $CC or cc, $CFLAGS or -O2),
 * of any length; -1 without memory (the previous ones stay). */
int xray_machine_set_compiler(xray_machine *m, const char *cc, const char *cflags);
/* Remove temporary files of a C kernel in flight; async-signal-safe. */
void xray_remove_temporaries(void);
/* Probe options: "ops" (TYPE:OP,... for latency and throughput, e.g.
 * "double:*,long:+"; OP is + - * / or fma) and "types" (TYPE,... for
 * registers).  -1 with a message on an unknown name, type or operator. */
int xray_machine_set_option(xray_machine *m, const char *name, const char *value, char *err,
                            size_t errlen);
void xray_machine_set_budget(xray_machine *m, double seconds_per_probe);
void xray_machine_set_trace(xray_machine *m, FILE *csv);
const char *xray_machine_describe(const xray_machine *m);
int xray_machine_is_simulated(const xray_machine *m);
double xray_machine_core_mhz(const xray_machine *m);   /* 0 if unknown */

/* --- results ------------------------------------------------------------- */

typedef enum xray_source {
  XRAY_SOURCE_MEASURED,         /* timed on this machine */
  XRAY_SOURCE_OVERRIDE,         /* given by the user */
  XRAY_SOURCE_OS,               /* read from the operating system */
  XRAY_SOURCE_DEFAULT,          /* a built-in default */
  XRAY_SOURCE_UNKNOWN           /* could not be established; see reason */
} xray_source;

typedef struct xray_value {
  char name[48];                /* define name, e.g. XRAY_L1I_SIZE */
  char desc[96];
  char unit[16];                /* "bytes", "ops", ... */
  double value;
  xray_source source;
  int have_os;                  /* the OS view below is set */
  double os_value;
  char os_source[48];           /* "sysfs", "sysconf", "hwloc" */
  int disagree;                 /* measured and OS differ by > tolerance */
  int unconfirmed;              /* repeated determinations did not agree */
  double seconds;               /* spent measuring this value's probe */
  char method[640];             /* kernel, layout, backend; why not confirmed */
  char reason[400];             /* why unknown */
  double exact;                 /* unrounded value, or NAN */
  double ns;                    /* the value in nanoseconds (latencies), or NAN */
  int effective;                /* a shared level: what this process gets */
} xray_value;

#define XRAY_REPORT_MAX 256

typedef struct xray_report {
  size_t n;
  xray_value v[XRAY_REPORT_MAX];
  char machine[200];
  char tick_source[32];
  char compiler[300];           /* CC and CFLAGS the C kernels were built with */
  double core_mhz;
  double seconds;
} xray_report;

void xray_report_init(xray_report *r);
xray_value *xray_report_add(xray_report *r, const char *name, const char *desc,
                            const char *unit);
const xray_value *xray_report_get(const xray_report *r, const char *name);

typedef enum xray_format {
  XRAY_FORMAT_TEXT,
  XRAY_FORMAT_JSON,
  XRAY_FORMAT_SHELL,            /* NAME=VALUE lines */
  XRAY_FORMAT_HEADER            /* #define lines */
} xray_format;

int xray_format_parse(const char *s, xray_format *f);

/* --- recordings ------------------------------------------------------------ */

/* A machine that answers the probes from a recording made by
 * `xray --record=DIR` (see xray(1)), instead of timing this one. */
xray_machine *xray_machine_replay(const char *dir, char *err, size_t errlen);
/* A recording's DIR/cpuinfo: the first processor's block of /proc/cpuinfo. */
int xray_record_cpuinfo(FILE *f);
/* A recording's DIR/machine: m's clocks, page and usable CPUs, and the OS
 * view of every value of r. */
int xray_record_machine(FILE *f, xray_machine *m, const xray_report *r);
int xray_report_write(const xray_report *r, FILE *f, xray_format fmt);

/* --- probes -------------------------------------------------------------- */

typedef struct xray_probe {
  const char *name;             /* "icache" */
  const char *summary;
  int (*run)(xray_machine *m, xray_report *r);
} xray_probe;

const xray_probe *xray_probe_find(const char *name);
const xray_probe *xray_probe_at(size_t i);      /* NULL past the last */
/* Runs one probe, adds its values, fills the OS view; 0 on success. */
int xray_probe_run(const xray_probe *p, xray_machine *m, xray_report *r);

#ifdef __cplusplus
}
#endif

#endif
