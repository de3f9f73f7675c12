/* The simulated core: what the CPU probes measure, with known answers.
 *
 * Spec items (defaults model a Zen 3 core and gcc -O2 -march=native):
 *
 *   clock=MHZ      core clock (3000)          tsc=MHZ   time-stamp counter (none)
 *   clock=none     a core whose clock the probes cannot time (a slow
 *                  counter is its only timer): figures in cycles are unknown
 *   drift=PERCENT  the clock moves this much over a probe's run (0)
 *   swing=PERCENT[:FRACTION]  ... and this much for FRACTION of it from
 *                  four tenths of the way on, then back (0:0.2)
 *   step=PERCENT   the clock moved this much after the machine was made
 *                  and holds there (0)
 *   int=ADD:MUL:DIV         integer latencies in cycles (1:3:9)
 *   fp=ADD:MUL:DIV:FMA      floating-point latencies (3:3:13.5:4)
 *   ithru=ADD:MUL:DIV       integer operations per cycle (4:1:0.2)
 *   fthru=ADD:MUL:DIV:FMA   floating-point operations per cycle (2:2:0.2:2)
 *   regs=INT:FP:VEC         variables the compiler keeps in registers (14:16:16)
 *   vec=BITS                widest vector type the compiler offers (256)
 *   fma=yes|no              the processor has a fused multiply-add (yes)
 *   contract=yes|no         the compiler fuses a*b+c at these flags (no)
 *   loop=OPS                integer operations of the loop control an iteration,
 *                           on the integer adders (2: counter, compare-and-branch)
 *   cpus=N  smt=K           usable CPUs, hardware threads per core (1, 1)
 *
 * A kernel set is "compiled" by reading its statements (pD = E, pD op= E,
 * E made of variables and + - * /) and timed as a loop on an out-of-order
 * core: cycles per iteration are the larger of the dependence bound (the
 * slope of the variables' ready times over iterations) and the resource
 * bound (operations over their units' throughput).  Variables beyond the
 * register count live on the stack: reading one costs `spill` cycles of
 * store-to-load forwarding, and each access is a load or store, which the
 * static check counts. */
#include "sim/sim.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ADD, OP_MUL, OP_DIV, OP_FMA };

void
xray__sim_core_init(struct xray__sim_core *c)
{
  static const double lat[2][4] = { { 1, 3, 9, 0 }, { 3, 3, 13.5, 4 } };
  static const double thru[2][4] = { { 4, 1, 0.2, 1 }, { 2, 2, 0.2, 2 } };

  memset(c, 0, sizeof *c);
  c->mhz = 3000;
  memcpy(c->lat, lat, sizeof lat);
  memcpy(c->thru, thru, sizeof thru);
  c->regs[0] = 14;
  c->regs[1] = c->regs[2] = 16;
  c->vecbits = 256;
  c->fma_isa = 1;
  c->ncpu = c->smt = 1;
  c->spill = 5;
  c->loop = 2;
}

void
xray__sim_core_free(struct xray__sim_core *c)
{
  free(c->k);
  free(c->text);
  c->k = NULL;
  c->text = NULL;
  c->nk = 0;
}

/* "A:B:C" into up to n positive numbers; all n must be given. */
static int
numbers(const char *key, const char *val, double *out, int n, int whole, char *err,
        size_t errlen)
{
  const char *p = val;
  int i;

  for (i = 0; i < n; i++) {
    char *end;
    double v = xray__decimal(p, &end);
    if (end == p || !(v > 0) || v > 1e6 || (whole && v != floor(v))) {
      snprintf(err, errlen, "%s=%s: expected %d %s separated by ':'", key, val, n,
               whole ? "whole numbers" : "positive numbers");
      return -1;
    }
    out[i] = v;
    p = end;
    if (i + 1 < n) {
      if (*p != ':') {
        snprintf(err, errlen, "%s=%s: expected %d values separated by ':'", key, val, n);
        return -1;
      }
      p++;
    }
  }
  if (*p) {
    snprintf(err, errlen, "%s=%s: expected %d values separated by ':'", key, val, n);
    return -1;
  }
  return 0;
}

static int
yesno(const char *key, const char *val, int *out, char *err, size_t errlen)
{
  if (strcmp(val, "yes") && strcmp(val, "no")) {
    snprintf(err, errlen, "%s: '%s' is not yes or no", key, val);
    return -1;
  }
  *out = strcmp(val, "yes") == 0;
  return 0;
}

int
xray__sim_core_item(struct xray__sim_core *c, const char *key, const char *val, char *err,
                  size_t errlen)
{
  double v[4];
  int i;

  if (strcmp(key, "drift") == 0 || strcmp(key, "swing") == 0 || strcmp(key, "step") == 0) {
    char *end;
    double d = xray__decimal(val, &end), f = 0.2;
    if (key[1] == 'w' && end != val && *end == ':') {
      const char *at = end + 1;
      f = xray__decimal(at, &end);
      if (end == at || *end || !(f > 0 && f <= 0.6)) {
        snprintf(err, errlen, "%s=%s: expected a fraction of the run above 0, at most 0.6", key,
                 val);
        return -1;
      }
    }
    if (end == val || *end || !(d > -50 && d < 50)) {
      snprintf(err, errlen, "%s=%s: expected a percentage between -50 and 50", key, val);
      return -1;
    }
    *(key[0] == 'd' ? &c->drift : key[1] == 'w' ? &c->swing : &c->step) = d / 100;
    if (key[1] == 'w')
      c->swing_for = f;
  } else if (strcmp(key, "clock") == 0 && strcmp(val, "none") == 0) {
    c->hidden = 1;
  } else if (strcmp(key, "clock") == 0 || strcmp(key, "tsc") == 0) {
    if (numbers(key, val, v, 1, 0, err, errlen))
      return -1;
    if (v[0] < 1) {
      snprintf(err, errlen, "%s=%s: expected MHz, at least 1", key, val);
      return -1;
    }
    *(key[0] == 'c' ? &c->mhz : &c->tsc) = v[0];
  } else if (strcmp(key, "int") == 0 || strcmp(key, "ithru") == 0) {
    if (numbers(key, val, v, 3, 0, err, errlen))
      return -1;
    for (i = 0; i < 3; i++)
      (key[1] == 'n' ? c->lat[0] : c->thru[0])[i] = v[i];
  } else if (strcmp(key, "fp") == 0 || strcmp(key, "fthru") == 0) {
    if (numbers(key, val, v, 4, 0, err, errlen))
      return -1;
    for (i = 0; i < 4; i++)
      (key[1] == 'p' ? c->lat[1] : c->thru[1])[i] = v[i];
  } else if (strcmp(key, "regs") == 0) {
    if (numbers(key, val, v, 3, 1, err, errlen))
      return -1;
    for (i = 0; i < 3; i++)
      c->regs[i] = (int) v[i];
  } else if (strcmp(key, "loop") == 0) {
    char *end;
    double d = xray__decimal(val, &end);
    if (end == val || *end || !(d >= 0) || d > 64) {
      snprintf(err, errlen, "loop=%s: expected operations an iteration, 0 to 64", val);
      return -1;
    }
    c->loop = d;
  } else if (strcmp(key, "vec") == 0) {
    if (numbers(key, val, v, 1, 1, err, errlen))
      return -1;
    c->vecbits = (int) v[0];
  } else if (strcmp(key, "fma") == 0) {
    if (yesno(key, val, &c->fma_isa, err, errlen))
      return -1;
  } else if (strcmp(key, "contract") == 0) {
    if (yesno(key, val, &c->contract, err, errlen))
      return -1;
  } else if (strcmp(key, "cpus") == 0 || strcmp(key, "smt") == 0) {
    if (numbers(key, val, v, 1, 1, err, errlen))
      return -1;
    if (v[0] > 4096) {
      snprintf(err, errlen, "%s=%s: at most 4096", key, val);
      return -1;
    }
    *(key[0] == 'c' ? &c->ncpu : &c->smt) = (int) v[0];
  } else
    return 0;
  return 1;
}

int
xray__sim_core_truth(const struct xray__sim_core *c, const struct xray__param *p, double *v)
{
  switch (p->what) {
  case XRAY__W_CPU_MHZ:
    *v = c->mhz;
    return c->hidden ? -1 : 0;
  case XRAY__W_TSC_MHZ:
    *v = c->tsc;
    return c->tsc > 0 ? 0 : -1;
  case XRAY__W_NUM_CPUS:
    *v = c->ncpu;
    return 0;
  case XRAY__W_NUM_CORES:
    *v = c->ncpu / c->smt;
    return 0;
  case XRAY__W_SMT_WAYS:
    *v = c->smt;
    return 0;
  case XRAY__W_FMA_ISA:
    *v = c->fma_isa;
    return 0;
  case XRAY__W_FMA_FUSES:
    *v = c->fma_isa && c->contract;
    return 0;
  case XRAY__W_FMA_LATENCY:
    *v = c->lat[1][OP_FMA];
    return c->fma_isa ? 0 : -1;
  case XRAY__W_FMA_RATE:
    *v = c->thru[1][OP_FMA];
    return c->fma_isa ? 0 : -1;
  case XRAY__W_REGS:
    *v = c->regs[p->arg];
    return 0;
  default:
    return -1;
  }
}

int
xray__sim_core_kbuild(struct xray__sim_core *c, const struct xray_cspec *k, size_t n, char *err,
                    size_t errlen)
{
  size_t i, len = 0;
  char *p;

  xray__sim_core_free(c);
  for (i = 0; i < n; i++)
    len += strlen(k[i].stmts) + strlen(k[i].type) + 2;
  c->k = malloc(n * sizeof *c->k + 1);
  c->text = malloc(len + 1);
  if (!c->k || !c->text) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (i = 0, p = c->text; i < n; i++) {
    c->k[i] = k[i];
    c->k[i].stmts = strcpy(p, k[i].stmts);
    p += strlen(p) + 1;
    c->k[i].type = strcpy(p, k[i].type);
    p += strlen(p) + 1;
  }
  c->nk = n;
  return 0;
}

/* Operation class (0 integer, 1 floating) and register class (0 integer,
 * 1 floating scalar, 2 vector) of a type; -1 if the simulated compiler
 * lacks it. */
static int
classify(const struct xray__sim_core *c, const char *t, int *rc)
{
  const char *cond = xray__type_condition(t);
  int bits = 0, isint;

  if (cond && strcmp(cond, "0") == 0)
    return -1;
  if (!cond) {
    *rc = xray__type_class(t);
    return *rc;
  }
  bits = strstr(t, "512") ? 512 : strstr(t, "256") ? 256 : 128;
  if (bits > c->vecbits)
    return -1;
  isint = t[strlen(t) - 1] == 'i' || strncmp(t, "int", 3) == 0;
  *rc = 2;
  return !isint;
}

/* A parsed operand: a variable's ready time, or a product a*b not yet
 * computed (so that a following + can fuse it). */
struct term {
  double t;
  int prod;                     /* 1: a*b pending in ta, tb */
  double ta, tb;
};

struct eval {
  const struct xray__sim_core *c;
  int cls, rc, nvars;
  double *ready;
  double ops[4], mem;
};

static int
var(struct eval *e, const char **s, double *t)
{
  char *end;
  long v;

  while (**s == ' ')
    (*s)++;
  if (**s != 'p' || !isdigit((unsigned char) (*s)[1]))
    return -1;
  v = strtol(*s + 1, &end, 10);
  if (v < 0 || v >= e->nvars)
    return -1;
  *s = end;
  *t = e->ready[v];
  if (v >= e->c->regs[e->rc]) {
    *t += e->c->spill;
    e->mem++;
  }
  return 0;
}

static double
finish(struct eval *e, const struct term *x)
{
  if (!x->prod)
    return x->t;
  e->ops[OP_MUL]++;
  return fmax(x->ta, x->tb) + e->c->lat[e->cls][OP_MUL];
}

/* x + y (or -), fusing a pending product where the compiler contracts. */
static double
add(struct eval *e, struct term *x, struct term *y)
{
  if (e->c->contract && e->c->fma_isa && e->cls == 1 && (x->prod || y->prod)) {
    struct term *p = x->prod ? x : y, *o = x->prod ? y : x;
    double to = finish(e, o);
    e->ops[OP_FMA]++;
    return fmax(fmax(p->ta, p->tb), to) + e->c->lat[1][OP_FMA];
  }
  {
    double a = finish(e, x), b = finish(e, y);
    e->ops[OP_ADD]++;
    return fmax(a, b) + e->c->lat[e->cls][OP_ADD];
  }
}

/* term: var (('*'|'/') var)* */
static int
term(struct eval *e, const char **s, struct term *out)
{
  double t, u;
  int n = 0;

  if (var(e, s, &t))
    return -1;
  out->prod = 0;
  out->t = t;
  for (;;) {
    char op;
    while (**s == ' ')
      (*s)++;
    if (**s != '*' && **s != '/')
      break;
    op = *(*s)++;
    if (var(e, s, &u))
      return -1;
    if (op == '*' && n == 0) {
      out->prod = 1;
      out->ta = t;
      out->tb = u;
    } else {
      double a = finish(e, out);
      int k = op == '*' ? OP_MUL : OP_DIV;
      e->ops[k]++;
      out->prod = 0;
      out->t = fmax(a, u) + e->c->lat[e->cls][k];
    }
    n++;
  }
  return 0;
}

/* expr: term (('+'|'-') term)* ; the value's ready time */
static int
expr(struct eval *e, const char **s, struct term *acc)
{
  struct term y;

  if (term(e, s, acc))
    return -1;
  for (;;) {
    while (**s == ' ')
      (*s)++;
    if (**s != '+' && **s != '-')
      break;
    (*s)++;
    if (term(e, s, &y))
      return -1;
    acc->t = add(e, acc, &y);
    acc->prod = 0;
  }
  return 0;
}

/* One statement "pD = E" or "pD op= E". */
static int
statement(struct eval *e, const char *s)
{
  struct term rhs, d;
  long dst;
  char *end, op = 0;

  while (*s == ' ')
    s++;
  if (*s != 'p' || !isdigit((unsigned char) s[1]))
    return -1;
  dst = strtol(s + 1, &end, 10);
  if (dst < 0 || dst >= e->nvars)
    return -1;
  s = end;
  while (*s == ' ')
    s++;
  if (strchr("+-*/", *s) && s[1] == '=')
    op = *s++;
  if (*s++ != '=')
    return -1;
  if (expr(e, &s, &rhs))
    return -1;
  while (*s == ' ')
    s++;
  if (*s)
    return -1;
  if (op) {
    const char *dv;
    char name[16];
    snprintf(name, sizeof name, "p%ld", dst);
    dv = name;
    if (var(e, &dv, &d.t))
      return -1;
    d.prod = 0;
    if (op == '+' || op == '-')
      rhs.t = add(e, &d, &rhs);
    else {
      double a = finish(e, &rhs);
      int k = op == '*' ? OP_MUL : OP_DIV;
      e->ops[k]++;
      rhs.t = fmax(a, d.t) + e->c->lat[e->cls][k];
    }
  } else
    rhs.t = finish(e, &rhs);
  e->ready[dst] = rhs.t;
  if (dst >= e->c->regs[e->rc])
    e->mem++;
  return 0;
}

double
xray__sim_core_ktime(struct xray__sim_core *c, size_t i, int *avail, double *stack)
{
  const struct xray_cspec *k;
  struct eval e;
  double ready[64], mark = 0, res, lat, per_it_ops[4], per_it_mem = 0;
  char buf[4096], *st[64], *p, *save = NULL;
  int n = 0, w, it, j, v;

  *avail = 0;
  *stack = -1;
  if (i >= c->nk)
    return NAN;
  k = &c->k[i];
  memset(&e, 0, sizeof e);
  e.c = c;
  if ((e.cls = classify(c, k->type, &e.rc)) < 0)
    return NAN;
  *avail = 1;
  e.nvars = k->nvars;
  if (e.nvars < 1 || e.nvars > 64 || strlen(k->stmts) >= sizeof buf)
    return NAN;
  strcpy(buf, k->stmts);
  for (p = strtok_r(buf, "|;", &save); p && n < 64; p = strtok_r(NULL, "|;", &save))
    st[n++] = p;
  if (n == 0)
    return NAN;
  w = (k->unroll + n - 1) / n * n;
  for (v = 0; v < e.nvars; v++)
    ready[v] = 0;
  e.ready = ready;
  /* The dependence bound: the slope of ready times over iterations 8..16. */
  for (it = 0; it < 16; it++) {
    if (it == 8) {
      for (v = 0, mark = 0; v < e.nvars; v++)
        mark = fmax(mark, ready[v]);
      memcpy(per_it_ops, e.ops, sizeof per_it_ops);
      per_it_mem = e.mem;
    }
    for (j = 0; j < w; j++)
      if (statement(&e, st[j % n]))
        return NAN;
  }
  for (v = 0, lat = 0; v < e.nvars; v++)
    lat = fmax(lat, ready[v]);
  lat = (lat - mark) / 8;
  /* The resource bound, per iteration. */
  res = 0;
  for (j = 0; j < 4; j++)
    res = fmax(res, ((e.ops[j] - per_it_ops[j]) / 8 + (e.cls == 0 && j == OP_ADD ? c->loop : 0))
                    / c->thru[e.cls][j]);
  res = fmax(res, (e.mem - per_it_mem) / 8 / 2);
  *stack = (e.mem - per_it_mem) / 8 / w;
  return fmax(lat, res) / w;
}
