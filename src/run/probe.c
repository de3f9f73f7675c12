/* What every probe run shares: timing, the OS view beside each value, the
 * disagreement flag, the rules every machine obeys. */
#include "run/run.h"
#include "machine/machine.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Measured and OS values further apart than this are flagged: a capacity
 * read off an edge within 3 %, a count (ways, entries, levels, a line or a
 * page, CPUs) not at all. */
#define DISAGREE_TOLERANCE 0.03

static double
disagree_tolerance(const xray_value *v)
{
  static const char *const counts[] = { "ways", "entries", "levels", "CPUs", "cores", "threads" };
  const struct xray__param *p = xray__param_find(v->name);
  size_t i;

  for (i = 0; i < sizeof counts / sizeof *counts; i++)
    if (strcmp(v->unit, counts[i]) == 0)
      return 0;
  if (p && (p->what == XRAY__W_CACHE_LINE || p->what == XRAY__W_PAGE_SIZE))
    return 0;
  return DISAGREE_TOLERANCE;
}

/* The geometry of private caches, of the first-level DTLB, the number of
 * levels and the page size, which the OS reads from the cache topology the
 * processor reports (sysfs, hwloc, sysconf, the L1s' CPUID leaf) and gets
 * right where it gives them at all (a hypervisor's invented figures are
 * its second-level TLB and shared-cache ones).  A measurement that
 * disagrees with it is not confirmed, however well it agreed with itself:
 * a tenant on the host's other thread can hold part of a private cache
 * for seconds, so that every run agrees on too small a one, and a shared
 * L3 that other tenants take in two stages can read as an L4. */
static int
topology_checks(const xray_machine *m, const xray_value *v)
{
  static const char *const sources[] = { "sysfs", "hwloc", "sysconf", "cpuid" };
  int level;
  const struct xray__param *p = xray__param_match(v->name, &level);
  size_t j;

  if (!m->hardware || v->effective || !p || !(p->kind & XRAY__OS_SETTLES) || level > 2)
    return 0;
  for (j = 0; j < sizeof sources / sizeof *sources; j++)
    if (strncmp(v->os_source, sources[j], strlen(sources[j])) == 0)
      return 1;
  return 0;
}

/* --- what every machine obeys --------------------------------------- */

static int
measured(const xray_value *v)
{
  return v && v->source == XRAY_SOURCE_MEASURED && isfinite(v->value);
}

/* v is not known after all, for why: no figure of it stands. */
static void
withdraw(xray_value *v, const char *why)
{
  v->source = XRAY_SOURCE_UNKNOWN;
  v->value = v->exact = v->ns = v->gbs = NAN;
  v->unconfirmed = 0;
  xray__value_unknown(v, why);
}

static void
impossible(xray_value *v, const char *fmt, ...)
{
  char why[200];
  int n = snprintf(why, sizeof why, "measured %.4g, which no machine can have: ", v->value);
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(why + n, sizeof why - (size_t) n, fmt, ap);
  va_end(ap);
  withdraw(v, why);
}

/* The value of r whose row says what, at level (any level: -2), or
 * NULL. */
#define ANY_LEVEL (-2)
static xray_value *
find_what(xray_report *r, enum xray__what what, int level)
{
  const struct xray__param *p;
  size_t i;
  int l;

  for (i = 0; i < r->n; i++)
    if ((p = xray__param_match(r->v[i].name, &l)) && p->what == what
        && (level == ANY_LEVEL || l == level))
      return &r->v[i];
  return NULL;
}

/* h must exceed l where both were measured; else h is impossible. */
static void
above(xray_value *h, xray_value *l, const char *what)
{
  if (measured(h) && measured(l) && !(h->value > l->value))
    impossible(h, "%s, and %s is %.4g", what, l->name, l->value);
}

/* Deeper than any data cache level a probe reports. */
#define DEEPEST_LEVEL 8

/* Values that break what every machine obeys (a disturbed run, an
 * emulator that does not model time) are never printed as measured: a
 * latency under a cycle; an outer cache level no larger, or no slower,
 * than the one inside it; memory no slower than the last cache; a full
 * TLB miss no dearer than a first-level one; a second TLB level no larger
 * than the first.  The outer value of a pair goes: it is the one measured
 * past the other's edge. */
static void
check_invariants(xray_report *r)
{
  size_t i;
  int l, last = 1;

  for (i = 0; i < r->n; i++) {
    xray_value *v = &r->v[i];
    const struct xray__param *p = xray__param_find(v->name);
    if (measured(v) && p && (p->kind & XRAY__LATENCY) && v->value < 1)
      impossible(v, "a latency under one cycle");
    if (measured(v) && p && p->what == XRAY__W_CPU_MHZ && v->value < 1)
      impossible(v, "a core clock under 1 MHz");
  }
  /* The data levels, from the L2 out, against the one inside each. */
  for (l = 2; l <= DEEPEST_LEVEL; l++) {
    above(find_what(r, XRAY__W_CACHE_SIZE, l), find_what(r, XRAY__W_CACHE_SIZE, l - 1),
          "an outer cache level no larger than the one inside it");
    above(find_what(r, XRAY__W_CACHE_LATENCY, l), find_what(r, XRAY__W_CACHE_LATENCY, l - 1),
          "an outer cache level no slower than the one inside it");
    if (measured(find_what(r, XRAY__W_CACHE_LATENCY, l)))
      last = l;
  }
  above(find_what(r, XRAY__W_MEM_LATENCY, ANY_LEVEL), find_what(r, XRAY__W_CACHE_LATENCY, last),
        "memory no slower than the last cache level");
  above(find_what(r, XRAY__W_TLB_WALK, ANY_LEVEL), find_what(r, XRAY__W_TLB_HIT2, ANY_LEVEL),
        "a full TLB miss no dearer than a first-level one");
  above(find_what(r, XRAY__W_TLB_ENTRIES, 2), find_what(r, XRAY__W_TLB_ENTRIES, 1),
        "a second TLB level no larger than the first");
}

/* A figure counted in core cycles needs the core clock: where it could not
 * be timed, the timer's ticks stood in for cycles (16 ns each for
 * AArch64's generic timer under QEMU), and no such figure is a count of
 * cycles.  It is unknown, with the reason; so are the figures that come
 * from the same timings (a rate per cycle). */
static void
need_clock(const xray_machine *m, xray_value *v)
{
  const struct xray__param *p = xray__param_find(v->name);
  char why[160];

  if (m->core_hz > 0 || !p || !(p->kind & XRAY__IN_CYCLES) || v->source != XRAY_SOURCE_MEASURED)
    return;
  if (m->tick_hz > 0)
    snprintf(why, sizeof why,
             "no core clock: the core's clock could not be timed, and the timer's %.1f MHz "
             "ticks are not its cycles",
             m->tick_hz / 1e6);
  else
    snprintf(why, sizeof why, "no core clock: the core's clock could not be timed");
  withdraw(v, why);
}

/* A probe that ran into r's memo already (for an earlier probe of r that
 * rests on it) is not run again: its values there are copied into r as
 * they were measured, so that r lists the very values the earlier probe
 * used.  0 where it established one; -1 where it did not (it runs again,
 * and fails as a probe does). */
static int
from_memo(const xray_probe *p, xray_report *r)
{
  size_t i, first = r->n;

  if (!xray__report_ran(r->deps, p->name))
    return -1;
  for (i = 0; i < r->deps->n && r->n < XRAY__REPORT_MAX; i++)
    if (strcmp(r->deps->v[i].probe, p->name) == 0)
      r->v[r->n++] = r->deps->v[i];
  for (i = first; i < r->n; i++)
    if (r->v[i].source != XRAY_SOURCE_UNKNOWN || r->v[i].moot)
      return 0;
  r->n = first;
  return -1;
}

int
xray_probe_run(const xray_probe *p, xray_machine *m, xray_report *r)
{
  size_t first = r->n, i;
  double t0 = xray__now(), dt;
  int rc, ran;

  if (from_memo(p, r) == 0)
    return 0;
  xray__machine_begin(m);
  m->error[0] = 0;
  m->short_of_room = 0;
  for (i = 0; i < 16 && m->probe_seen[i] && m->probe_seen[i] != p; i++)
    ;
  if (i < 16) {
    m->probe_seen[i] = p;
    m->run = ++m->probe_runs[i];
  }
  /* The report keeps CC and CFLAGS for people to read; a long pair is
   * shortened visibly (the kernels get the whole of it). */
  if (snprintf(r->compiler, sizeof r->compiler, "%s %s", m->cc, m->cflags)
      >= (int) sizeof r->compiler)
    strcpy(r->compiler + sizeof r->compiler - 4, "...");
  ran = p->run(m, r) == 0;
  /* The machine as the report names it, with the clock the probes used. */
  snprintf(r->machine, sizeof r->machine, "%s", xray_machine_describe(m));
  r->core_mhz = xray_machine_core_mhz(m);
  dt = xray__now() - t0;
  /* One rule for every probe: it failed when it established none of its
   * values and could not run its experiments (it said so, or the machine
   * reported an error).  One that ran and established nothing here (right
   * or unknown: an L1I that no kernel shows) did not fail.  Unknown
   * values all say why. */
  rc = -1;
  r->seconds += dt;
  for (i = first; i < r->n; i++) {
    xray_value *v = &r->v[i];
    v->seconds = dt;
    need_clock(m, v);
    if (v->source != XRAY_SOURCE_UNKNOWN || v->moot)
      rc = 0;
    else if (!v->reason[0])
      xray__value_unknown(v, m->error[0] ? m->error : "the probe stopped before measuring it");
    if (xray__os_view(m, v->name, &v->os_value, v->os_source, sizeof v->os_source) == 0
        && isfinite(v->os_value)) {
      v->have_os = 1;
      if (v->source == XRAY_SOURCE_MEASURED)
        v->disagree = fabs(v->value - v->os_value) > disagree_tolerance(v) * v->os_value;
      if (v->disagree && !v->unconfirmed && topology_checks(m, v))
        xray__value_doubt(v, "; not confirmed: the OS's cache topology (%s) says %.0f",
                          v->os_source, v->os_value);
    }
    /* What this process gets of a level other cores share moves with
     * their load from run to run; it is confirmed only where the OS's
     * figure for the level agrees. */
    if (v->effective && v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed
        && !(v->have_os && !v->disagree))
      xray__value_doubt(v, "; not confirmed: an effective share of a shared level, which "
                        "other cores' load moves");
  }
  /* Nor did one that lacked memory for its experiments: a limit on the
   * process (ulimit -v) leaves its values unknown, each saying so. */
  if (rc && ran && (!m->error[0] || m->short_of_room))
    rc = 0;
  check_invariants(r);
  return rc;
}

/* Text that does not fit ends in "...": nothing is cut silently. */
static void
put_text(char *dst, size_t size, const char *src)
{
  if (snprintf(dst, size, "%s", src) >= (int) size && size > 4)
    strcpy(dst + size - 4, "...");
}

void
xray__value_measured(xray_value *v, double x, const char *method)
{
  if (!v)
    return;
  v->value = x;
  v->source = XRAY_SOURCE_MEASURED;
  put_text(v->method, sizeof v->method, method);
}

/* The note goes after the method; where both do not fit, the method is
 * shortened (with "...") rather than the note, which says why the value
 * is not confirmed. */
void
xray__value_doubt(xray_value *v, const char *fmt, ...)
{
  char note[sizeof v->method / 2];
  size_t len = strlen(v->method), n;
  va_list ap;

  v->unconfirmed = 1;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
  n = strlen(note);
  if (len + n >= sizeof v->method) {
    len = sizeof v->method - n - 4;
    strcpy(v->method + len, "...");
    len += 3;
  }
  put_text(v->method + len, sizeof v->method - len, note);
}

void
xray__value_unknown(xray_value *v, const char *why)
{
  if (v)
    put_text(v->reason, sizeof v->reason, why);
}

void
xray__value_moot(xray_value *v, const char *why)
{
  if (v) {
    xray__value_unknown(v, why);
    v->moot = 1;
  }
}

static int
known_type(const char *t, char *err, size_t errlen)
{
  const char *c = xray__type_condition(t);

  if (c && strcmp(c, "0") == 0) {
    char known[512];
    xray__type_list(known, sizeof known);
    snprintf(err, errlen, "unknown type '%s' (known: %s)", t, known);
    return 0;
  }
  return 1;
}

int
xray__parse_ops(const char *list, struct xray__op *out, size_t max, size_t *n, char *err,
                size_t errlen)
{
  char buf[512], *item, *save = NULL, *colon;

  *n = 0;
  if (strlen(list) >= sizeof buf) {
    snprintf(err, errlen, "the list is longer than %zu characters", sizeof buf - 1);
    return -1;
  }
  strcpy(buf, list);
  for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    if (!(colon = strrchr(item, ':'))) {
      snprintf(err, errlen, "'%s': expected TYPE:OP, e.g. double:*", item);
      return -1;
    }
    *colon++ = 0;
    if (strcmp(colon, "+") && strcmp(colon, "-") && strcmp(colon, "*") && strcmp(colon, "/")
        && strcmp(colon, "fma")) {
      snprintf(err, errlen, "unknown operator '%s' (+, -, *, / or fma)", colon);
      return -1;
    }
    if (strlen(item) >= sizeof out->type) {
      snprintf(err, errlen, "type '%.40s...' is longer than any xray knows (%zu characters)",
               item, sizeof out->type - 1);
      return -1;
    }
    if (!known_type(item, err, errlen))
      return -1;
    if (*n == max) {
      snprintf(err, errlen, "more than %zu TYPE:OP items", max);
      return -1;
    }
    strcpy(out[*n].type, item);
    strcpy(out[*n].op, colon);
    (*n)++;
  }
  if (!*n) {
    snprintf(err, errlen, "empty list");
    return -1;
  }
  return 0;
}

static int
set_option(xray_machine *m, const char *name, const char *value, char *err, size_t errlen)
{
  struct xray__op ops[32];
  size_t n;

  if (strcmp(name, "ops") == 0) {
    if (strlen(value) >= sizeof m->oplist) {
      snprintf(err, errlen, "the list is longer than %zu characters", sizeof m->oplist - 1);
      return -1;
    }
    if (xray__parse_ops(value, ops, 32, &n, err, errlen))
      return -1;
    snprintf(m->oplist, sizeof m->oplist, "%s", value);
  } else if (strcmp(name, "types") == 0) {
    char buf[256], *t, *save = NULL;
    if (strlen(value) >= sizeof buf || !*value) {
      snprintf(err, errlen, "give up to three types separated by commas");
      return -1;
    }
    const char *seen[3] = { NULL, NULL, NULL };
    static const char *const cname[3] = { "integer", "floating", "vector" };
    strcpy(buf, value);
    for (n = 0, t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
      int c;
      if (!known_type(t, err, errlen))
        return -1;
      c = xray__type_class(t);
      if (seen[c]) {
        snprintf(err, errlen, "'%s' and '%s' are both %s types (give one of each class)", seen[c],
                 t, cname[c]);
        return -1;
      }
      seen[c] = t;
    }
    snprintf(m->types, sizeof m->types, "%s", value);
  } else {
    snprintf(err, errlen, "unknown option '%s' (ops or types)", name);
    return -1;
  }
  return 0;
}

/* Every message of a known option starts with its name, once. */
int
xray_machine_set_option(xray_machine *m, const char *name, const char *value, char *err,
                        size_t errlen)
{
  char msg[1024];
  int rc = set_option(m, name, value, msg, sizeof msg);

  if (rc == 0)
    return 0;
  if (strcmp(name, "ops") == 0 || strcmp(name, "types") == 0)
    snprintf(err, errlen, "%s: %s", name, msg);
  else
    snprintf(err, errlen, "%s", msg);
  return rc;
}

void
xray__define_name(char *out, size_t len, const char *prefix, const char *type, const char *op)
{
  static const char *const opname[][2] = { { "+", "ADD" }, { "-", "SUB" }, { "*", "MUL" },
                                           { "/", "DIV" }, { "fma", "FMA" } };
  size_t o = 0, i;

  o += (size_t) snprintf(out, len, "XRAY_%s_", prefix);
  while (*type == '_')
    type++;
  for (; *type && o + 1 < len; type++)
    out[o++] = *type == ' ' ? '_' : (char) toupper((unsigned char) *type);
  out[o] = 0;
  if (op)
    for (i = 0; i < sizeof opname / sizeof *opname; i++)
      if (strcmp(op, opname[i][0]) == 0)
        snprintf(out + o, len - o, "_%s", opname[i][1]);
}

double
xray__quantize(double x)
{
  if (!(x > 0))
    return x;
  if (x < 0.95)
    return 1 / floor(1 / x + 0.5);
  return floor(x * 2 + 0.5) / 2;
}
