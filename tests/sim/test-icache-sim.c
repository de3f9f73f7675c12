/* The I-cache engine against simulated machines whose geometry is known:
 * sizes that are not powers of two, 1- to 20-way, 32- to 128-byte lines,
 * LRU, tree-PLRU and random replacement, with and without an op cache,
 * miss penalties from 3 to 30 cycles (at 20 and more the L2 cannot feed
 * even 4-byte NOPs, so their curve steps at the L1I edge too), with
 * measurement noise and isolated spikes.  Deterministic: the noise is
 * seeded.  Pass: both capacities within 3 % (an absent op cache exactly 0). */
#include "xray-internal.h"
#include "../tap.h"

#include <math.h>
#include <string.h>

/* The simulated machine's truth: its OS view. */
static int
sim_truth(const xray_machine *m, const char *name, double *v)
{
  char src[48];

  return xray__os_view(m, name, v, src, sizeof src);
}

static const char *const specs[] = {
  "l1i=8K:2:64",
  "l1i=12K:3:64",
  "l1i=16K:4:64,uop=1536",
  "l1i=20K:5:64",
  "l1i=20K:20:64",
  "l1i=24K:3:64",
  "l1i=24K:6:64,uop=2304",
  "l1i=32K:8:64,uop=4096",
  "l1i=32K:8:64:plru,uop=4096",
  "l1i=32K:8:64:random",
  "l1i=36K:9:64,uop=4096",
  "l1i=40K:5:64,uop=2304",
  "l1i=48K:12:64,uop=4096",
  "l1i=48K:3:64",
  "l1i=64K:1:64",
  "l1i=64K:4:128",
  "l1i=12K:3:32",
  "l1i=80K:20:64,uop=6144",
  "l1i=96K:12:64",
  "l1i=96K:6:64,uop=4096",
  "l1i=128K:8:64",
  "l1i=160K:20:64,uop=2304",
  "l1i=192K:12:64",
  "l1i=192K:6:64,uop=4096",
  "l1i=256K:8:64",
  "l1i=256K:16:64,uop=6144",
  "l1i=32K:8:64,noise=3,spikes=5,seed=11",
  "l1i=48K:12:64,uop=4096,noise=3,spikes=5,seed=12",
  "l1i=96K:12:64,noise=3,spikes=5,seed=13",
  "l1i=24K:6:64,uop=2304,noise=3,spikes=5,seed=14",
  "l1i=48K:12:64,penalty=20",
  "l1i=64K:4:64,penalty=8",
  "l1i=24K:6:64,uop=2304,penalty=30",
  "l1i=40K:10:64,uop=3072,penalty=6",
};

/* Front ends modelled on real cores, where the L1I must be right or
 * unknown with the reason, never an op cache's reach: AMD op caches end an
 * entry at a taken jump and at a 64-byte window's end.  Zen 3-like (4K
 * ops, inclusive), Zen 4-like (6912 ops, 9 per entry), and Zen 5-like: 6K
 * ops that serve loops the L1I does not hold, so 8-byte NOPs run from the
 * op cache out to 48 KB, past the 32 KB L1I. */
static const struct {
  const char *spec;
  int must_know;                /* the L1I must be found, not only be right or unknown */
} front_ends[] = {
  { "l1i=32K:8:64,uop=4K:8,fetch=6:4:32:1,penalty=4", 1 },
  { "l1i=32K:8:64,uop=6912:9,fetch=9:4:32:1,penalty=4", 1 },
  { "l1i=32K:8:64,uop=6K:8:excl,fetch=12:4:64:2,penalty=4", 1 },
  { "l1i=32K:8:64,uop=6K:8:excl,fetch=12:4:64:2,penalty=3", 1 },
  { "l1i=32K:8:64,uop=6K:8:excl,fetch=12:4:64:2,penalty=4,noise=3,spikes=5,seed=21", 1 },
  { "l1i=48K:12:64,uop=6K:8:excl,fetch=12:4:64:2,penalty=5", 1 },
  { "l1i=32K:8:64,uop=4K:8,fetch=6:4:32:0,penalty=4", 1 },
  /* Intel-like (Sunny Cove): 2304 ops, 6 an entry, five a cycle from the
   * op cache against four from the decoders, which read 16 bytes a cycle,
   * as fast as the L2 feeds them: the 4-byte NOPs rise by 25 % only, and
   * nothing steps at the L1I edge. */
  { "l1i=32K:8:64,uop=2304:6,fetch=5:4:16:1,penalty=4", 1 },
  { "l1i=32K:8:64,uop=2304:6,fetch=5:4:16:2,penalty=4,noise=2,spikes=5,seed=5", 1 },
};

static void
test_front_ends(void)
{
  size_t i;

  for (i = 0; i < sizeof front_ends / sizeof *front_ends; i++) {
    char err[256] = "";
    xray_machine *m = xray_machine_simulated(front_ends[i].spec, err, sizeof err);
    static xray_report r;
    const xray_value *l1i, *uop;
    double truth, truth_uop;

    if (!m) {
      tap_ok(0, "%s: %s", front_ends[i].spec, err);
      tap_ok(0, "%s: skipped", front_ends[i].spec);
      continue;
    }
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    l1i = xray_report_get(&r, "XRAY_L1I_SIZE");
    uop = xray_report_get(&r, "XRAY_UOP_CACHE_OPS");
    sim_truth(m, "XRAY_L1I_SIZE", &truth);
    sim_truth(m, "XRAY_UOP_CACHE_OPS", &truth_uop);
    /* Every one has an op cache: never "none", and a confirmed size right. */
    if (uop->source == XRAY_SOURCE_UNKNOWN || uop->unconfirmed)
      tap_ok(uop->value != 0 || uop->source == XRAY_SOURCE_UNKNOWN,
             "%s: op cache of %g ops unknown or unconfirmed (%g: %s)", front_ends[i].spec,
             truth_uop, uop->value, uop->reason);
    else
      tap_ok(fabs(uop->value - truth_uop) <= 0.03 * truth_uop, "%s: op cache %g ops, truth %g",
             front_ends[i].spec, uop->value, truth_uop);
    if (l1i->source == XRAY_SOURCE_UNKNOWN)
      tap_ok(!front_ends[i].must_know && l1i->reason[0] != 0, "%s: L1I unknown (%s)",
             front_ends[i].spec, l1i->reason[0] ? l1i->reason : "no reason");
    else if (l1i->unconfirmed)
      tap_ok(!front_ends[i].must_know, "%s: L1I %g, flagged unconfirmed", front_ends[i].spec,
             l1i->value);
    else
      tap_near(l1i->value, truth, 0.03, front_ends[i].spec);
    xray_machine_free(m);
  }
}

/* Noise that swamps the edge (a fifth of every time, and two in five
 * points spiked): an edge found under it lies late, and every run's
 * alike, so runs that agree confirm nothing.  Unknown or unconfirmed is
 * right here; a confirmed value must be within 3 %. */
static const char *const swamped[] = {
  "l1i=32K:8:64,noise=20,spikes=40,seed=1",
  "l1i=32K:8:64,noise=20,spikes=40,seed=4",
  "l1i=32K:8:64,noise=20,spikes=40,seed=7",
};

static void
test_swamped(void)
{
  size_t i;

  for (i = 0; i < sizeof swamped / sizeof *swamped; i++) {
    char err[256] = "";
    xray_machine *m = xray_machine_simulated(swamped[i], err, sizeof err);
    static xray_report r;
    const xray_value *l1i;
    double truth;

    if (!m) {
      tap_ok(0, "%s: %s", swamped[i], err);
      continue;
    }
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    l1i = xray_report_get(&r, "XRAY_L1I_SIZE");
    sim_truth(m, "XRAY_L1I_SIZE", &truth);
    tap_ok(l1i->source != XRAY_SOURCE_MEASURED || l1i->unconfirmed
               || fabs(l1i->value - truth) <= 0.03 * truth,
           "%s: L1I %g%s, truth %g", swamped[i], l1i->value,
           l1i->source != XRAY_SOURCE_MEASURED ? " (unknown)"
                                                : l1i->unconfirmed ? " (unconfirmed)" : "",
           truth);
    xray_machine_free(m);
  }
}

/* The portable C path, where even X-Ray's add statement is fetch-bound
 * (a slow L2).  Bisection without the transition fit: 5 %. */
static const char *const c_specs[] = {
  "l1i=32K:8:64,penalty=30",
  "l1i=48K:12:64,penalty=30",
  "l1i=24K:3:64,penalty=40",
  "l1i=96K:6:64,penalty=30,seed=3",
};

static void
test_c_path(void)
{
  size_t i;

  for (i = 0; i < sizeof c_specs / sizeof *c_specs; i++) {
    char err[256] = "", what[160];
    xray_machine *m = xray_machine_simulated(c_specs[i], err, sizeof err);
    static xray_report r;
    const xray_value *l1i;
    double truth;

    xray_machine_set_kernel(m, XRAY_KERNEL_C);
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    l1i = xray_report_get(&r, "XRAY_L1I_SIZE");
    sim_truth(m, "XRAY_L1I_SIZE", &truth);
    snprintf(what, sizeof what, "C path, %s L1I", c_specs[i]);
    tap_near(l1i->value, truth, 0.05, what);
    xray_machine_free(m);
  }
  {
    char err[256] = "";
    xray_machine *m = xray_machine_simulated("l1i=32K:8:64", err, sizeof err);
    static xray_report r;
    const xray_value *v;

    xray_machine_set_kernel(m, XRAY_KERNEL_C);
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    v = xray_report_get(&r, "XRAY_L1I_SIZE");
    tap_ok(v->source == XRAY_SOURCE_UNKNOWN && strstr(v->reason, "not fetch-bound")
               && strstr(v->method, "portable C fallback"),
           "C path where the add statement is ALU-bound: unknown, labelled (%s)", v->reason);
    xray_machine_free(m);
  }
}

int
main(void)
{
  size_t i, n = sizeof specs / sizeof *specs;

  tap_plan((int) (2 * n + sizeof c_specs / sizeof *c_specs + 1
                  + 2 * (sizeof front_ends / sizeof *front_ends)
                  + sizeof swamped / sizeof *swamped));
  test_c_path();
  test_front_ends();
  test_swamped();
  for (i = 0; i < n; i++) {
    char err[256] = "", what[160];
    xray_machine *m = xray_machine_simulated(specs[i], err, sizeof err);
    static xray_report r;
    const xray_value *l1i, *uop;
    double truth_l1i, truth_uop;

    if (!m) {
      tap_ok(0, "%s: %s", specs[i], err);
      tap_ok(0, "%s: skipped", specs[i]);
      continue;
    }
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    l1i = xray_report_get(&r, "XRAY_L1I_SIZE");
    uop = xray_report_get(&r, "XRAY_UOP_CACHE_OPS");
    sim_truth(m, "XRAY_L1I_SIZE", &truth_l1i);
    sim_truth(m, "XRAY_UOP_CACHE_OPS", &truth_uop);
    snprintf(what, sizeof what, "%s L1I (%s)", specs[i], l1i->method);
    tap_near(l1i->value, truth_l1i, 0.03, what);
    snprintf(what, sizeof what, "%s op cache", specs[i]);
    if (truth_uop == 0)
      /* Where the 4-byte NOPs step only at the L1I edge (a slow L2), no
       * op cache and one that holds as much as the L1I look alike. */
      tap_ok(uop->value == 0 || (uop->source == XRAY_SOURCE_UNKNOWN
                                 && strstr(uop->reason, "its size is not seen")),
             "%s: got %g (%s), want 0 (none) or unknown", what, uop->value, uop->reason);
    else
      tap_near(uop->value, truth_uop, 0.03, what);
    xray_machine_free(m);
  }
  return tap_done();
}
