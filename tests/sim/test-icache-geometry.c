/* The L1I's ways and line size (probes/icache-geometry.c) against simulated
 * machines whose geometry is known.  The geometries are not the ones the
 * engine was developed on: 1- to 24-way, ways that are not powers of two
 * (3, 5, 6, 7, 9, 10, 11, 12, 14, 15), 32- to 256-byte lines, LRU and
 * tree-PLRU, with noise, spikes and dearer misses.  There both values must
 * be found, confirmed and exact.  Under random replacement, tree-PLRU over
 * ways that are not a power of two (which can evict a chain's own lines
 * while stale ones stay) and in front ends with op caches they must be
 * exact or not confirmed, with a reason.  Where a branch target buffer
 * indexed by more address bits holds fewer of the chains' jumps a set
 * than the L1I holds of their code, the ways must still be found,
 * confirmed and exact, and with misses dear enough to show in chains
 * left by returns, the line too.
 * Deterministic: the noise is seeded. */
#include "xray-internal.h"
#include "../tap.h"

#include <string.h>

static const char *const must[] = {
  "l1i=8K:1:32",
  "l1i=16K:1:64",
  "l1i=16K:2:32",
  "l1i=32K:2:128",
  "l1i=12K:6:32",
  "l1i=24K:6:32",
  "l1i=28K:7:64",
  "l1i=36K:9:64",
  "l1i=40K:10:64",
  "l1i=44K:11:64",
  "l1i=56K:14:64",
  "l1i=60K:15:64",
  "l1i=64K:16:128",
  "l1i=96K:24:64",
  "l1i=48K:6:128",
  "l1i=72K:9:128",
  "l1i=128K:4:128",
  "l1i=80K:5:256",
  "l1i=32K:8:32:plru",
  "l1i=64K:8:64:plru",
  "l1i=16K:4:32:plru",
  "l1i=20K:5:64,noise=3,spikes=5,seed=31",
  "l1i=64K:16:64:plru,noise=2,spikes=3,seed=32",
  "l1i=36K:9:64,penalty=10",
  "l1i=32K:8:64,penalty=6,noise=2,seed=33",
  "l1i=32K:8:64,btb=96K:3:16,btbpen=3,penalty=8",
  "l1i=48K:12:64,btb=64K:4:16,btbpen=3,penalty=8",
  "l1i=36K:9:64,btb=48K:3:16,btbpen=4,penalty=10,noise=2,seed=46",
  "l1i=32K:8:128,btb=64K:2:16,btbpen=3,penalty=12",
};

static const char *const ways_must[] = {
  "l1i=32K:8:64,btb=96K:3:16,btbpen=3",
  "l1i=48K:12:64,btb=64K:4:16,btbpen=3",
  "l1i=36K:9:64,btb=48K:3:16,btbpen=4",
  "l1i=48K:12:64,btb=64K:4:16,btbpen=3,noise=2,spikes=3,seed=44",
};

static const char *const never_wrong[] = {
  "l1i=40K:10:64,btb=64K:2:16,penalty=2",
  "l1i=32K:8:128,btb=64K:2:16,btbpen=3",
  "l1i=32K:8:64:random",
  "l1i=48K:12:64:random",
  "l1i=64K:16:64:random,seed=34",
  "l1i=32K:8:64,uop=4K:8,fetch=6:4:32:1,penalty=4",
  "l1i=32K:8:64,uop=6912:9,fetch=9:4:32:1,penalty=4",
  "l1i=32K:8:64,uop=6K:8:excl,fetch=12:4:64:2,penalty=4,noise=3,spikes=5,seed=21",
  "l1i=24K:3:64:plru",
  "l1i=24K:12:32:plru",
  "l1i=48K:12:64:plru,noise=2,spikes=3,seed=36",
  "l1i=32K:8:64,noise=5,spikes=10,seed=35",
};

/* One value against the simulation's truth: exact if confirmed; where not
 * confirmed or unknown, a failure only if it must be found. */
static void
check(const xray_report *r, const xray_machine *m, const char *spec, const char *name,
      int must_know)
{
  const xray_value *v = xray_report_get(r, name);
  char src[48];
  double truth = -1;

  xray__os_view(m, name, &truth, src, sizeof src);
  if (v->source == XRAY_SOURCE_UNKNOWN)
    tap_ok(!must_know && v->reason[0], "%s: %s unknown (%s)", spec, name, v->reason);
  else if (v->unconfirmed)
    tap_ok(!must_know, "%s: %s %g, not confirmed (%s)", spec, name, v->value, v->method);
  else
    tap_ok(v->value == truth, "%s: %s %g, want %g (%s)", spec, name, v->value, truth, v->method);
}

static void
run(const char *spec, int must_ways, int must_line)
{
  char err[256] = "";
  xray_machine *m = xray_machine_simulated(spec, err, sizeof err);
  static xray_report r;

  if (!m) {
    tap_ok(0, "%s: %s", spec, err);
    tap_ok(0, "%s: skipped", spec);
    return;
  }
  xray__report_init(&r);
  xray_probe_run(xray_probe_find("icache"), m, &r);
  check(&r, m, spec, "XRAY_L1I_ASSOC", must_ways);
  check(&r, m, spec, "XRAY_L1I_LINE", must_line);
  xray_machine_free(m);
}

int
main(void)
{
  size_t i, n1 = sizeof must / sizeof *must, n2 = sizeof never_wrong / sizeof *never_wrong,
            n3 = sizeof ways_must / sizeof *ways_must;

  tap_plan((int) (2 * (n1 + n2 + n3) + 2));
  for (i = 0; i < n1; i++)
    run(must[i], 1, 1);
  for (i = 0; i < n3; i++)
    run(ways_must[i], 1, 0);
  for (i = 0; i < n2; i++)
    run(never_wrong[i], 0, 0);
  {
    /* The portable C path cannot place code: unknown, and why. */
    char err[256] = "";
    xray_machine *m = xray_machine_simulated("l1i=32K:8:64,penalty=30", err, sizeof err);
    static xray_report r;
    const xray_value *a, *l;

    xray_machine_set_kernel(m, XRAY_KERNEL_C);
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    a = xray_report_get(&r, "XRAY_L1I_ASSOC");
    l = xray_report_get(&r, "XRAY_L1I_LINE");
    tap_ok(a->source == XRAY_SOURCE_UNKNOWN && strstr(a->reason, "cannot place code"),
           "C path: ways unknown (%s)", a->reason);
    tap_ok(l->source == XRAY_SOURCE_UNKNOWN && strstr(l->reason, "cannot place code"),
           "C path: line unknown (%s)", l->reason);
    xray_machine_free(m);
  }
  return tap_done();
}
