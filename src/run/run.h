/* run/: results and the table of values, one probe run and its rules,
 * the OS view. */
#ifndef XRAY__RUN_H
#define XRAY__RUN_H

#include "xray.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* run/report.c: the results behind xray.h's opaque types.  The fixed
 * arrays are private: a longer field changes no program linked to
 * libxray. */
/* A value's method and reason at most; a probe builds them in buffers of
 * these sizes, so that only the value's own setters shorten them, and
 * visibly ("..."). */
#define XRAY__METHOD_LEN 640
#define XRAY__REASON_LEN 400

struct xray_value {
  char name[48]; /* define name, e.g. XRAY_L1I_SIZE */
  char desc[96];
  char unit[16]; /* "bytes", "ops", ... */
  double value;
  xray_source source;
  int have_os; /* the OS view below is set */
  double os_value;
  char os_source[48]; /* "sysfs", "sysconf", "hwloc" */
  int disagree; /* measured and OS differ by > tolerance */
  int unconfirmed; /* repeated determinations did not agree */
  double seconds; /* spent measuring this value's probe */
  char method[XRAY__METHOD_LEN]; /* kernel, layout, backend; why not confirmed */
  char reason[XRAY__REASON_LEN]; /* why unknown */
  double exact; /* unrounded value, or NAN */
  double ns; /* the value in nanoseconds (latencies), or NAN */
  double gbs; /* the value in GB/s (bandwidths: 1e9 bytes a second), or NAN */
  int effective; /* a shared level: what this process gets */
  int moot; /* unknown because this machine has nothing to measure (one
             * CPU to share with): the probe did not fail for it */
  char text[160]; /* a value that is a name, not a number (a core kind's) */
  char probe[16]; /* the probe whose entry it is (params.c); "": none */
};

/* Every value of a full run for each of a few kinds of core, and the
 * default kind's again. */
#define XRAY__REPORT_MAX 1024

struct xray_report {
  size_t n;
  xray_value v[XRAY__REPORT_MAX];
  char machine[200];
  char tick_source[32];
  char compiler[300]; /* CC and CFLAGS the C kernels were built with */
  double core_mhz;
  double seconds;
  /* The values of the probes run for this report's probes to rest on,
   * not listed in it (probes/ops.c: xray__resting_on); NULL: none yet. */
  struct xray_report *deps;
};

/* An empty report in place; a value added to it (NULL if it is full). */
void xray__report_init(xray_report *r);
xray_value *xray__report_add(xray_report *r, const char *name, const char *desc, const char *unit);

/* run/report.c: whether probe set a value in r (0 where r is NULL). */
int xray__report_ran(const xray_report *r, const char *probe);

/* run/report.c: value name added to r with the table's unit and description (a and b
 * fill a family's %s); NULL if r is full or name is in no entry. */
xray_value *xray__report_param(xray_report *r, const char *name, const char *a, const char *b);

/* run/probe.c: the pieces of a TYPE:OP list; 0, or -1 with a message. */
struct xray__op {
  char type[32];
  char op[4]; /* + - * / fma */
};
int xray__parse_ops(const char *list, struct xray__op *out, size_t max, size_t *n, char *err,
                    size_t errlen);
/* XRAY_<prefix>_<TYPE>[_<OP>]: "__m256d" -> M256D, "long double" -> LONG_DOUBLE. */
void xray__define_name(char *out, size_t len, const char *prefix, const char *type, const char *op);
/* The value on a grid fit for a define: latencies to half cycles,
 * initiation intervals below one cycle to 1/k. */
double xray__quantize(double x);

/* run/probe.c: a value measured by `method`, or unknown because of `why`
 * (either may be given a NULL value, which does nothing). */
void xray__value_measured(xray_value *v, double x, const char *method);
void xray__value_unknown(xray_value *v, const char *why);
/* Unknown because the machine has nothing of the kind (one usable CPU for
 * a value between two): not a failure of the probe. */
void xray__value_moot(xray_value *v, const char *why);
/* Not confirmed after all: marks v so and adds to its method why,
 * formatted ("; not confirmed: ..."). */
void xray__value_doubt(xray_value *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
