/* A program of a user's: only <xray.h>, linked with libxray itself (which
 * exports xray_* and nothing else), as 'pkg-config --libs xray' gives it. */
#include <xray.h>
#include "../tap.h"

#include <string.h>

/* A probe of the test's own that "measures" what no machine can have, as
 * a disturbed run or an emulator would: each such value must come out
 * unknown, with a reason, and the possible ones stay. */
static const struct {
  const char *name;
  double v;
  int possible;
} odd[] = {
  { "XRAY_L1D_SIZE", 49152, 1 },  { "XRAY_L1D_LATENCY", 0.4, 0 }, { "XRAY_L2_SIZE", 32768, 0 },
  { "XRAY_L2_LATENCY", 14, 1 },   { "XRAY_L3_SIZE", 8388608, 1 }, { "XRAY_L3_LATENCY", 11, 0 },
  { "XRAY_MEM_LATENCY", 12, 0 },  { "XRAY_DTLB_MISS_LATENCY", 7, 1 },
  { "XRAY_TLB_MISS_LATENCY", 6.5, 0 }, { "XRAY_DTLB_ENTRIES", 96, 1 },
  { "XRAY_L2TLB_ENTRIES", 64, 0 }, { "XRAY_LAT_LONG_ADD", 0, 0 }, { "XRAY_II_LONG_ADD", 0.2, 1 },
};

static int
odd_run(xray_machine *m, xray_report *r)
{
  size_t i;

  (void) m;
  for (i = 0; i < sizeof odd / sizeof *odd; i++) {
    xray_value *v = xray_report_add(r, odd[i].name, "a value", "units");
    v->value = odd[i].v;
    v->source = XRAY_SOURCE_MEASURED;
  }
  return 0;
}

static void
invariants(xray_machine *m)
{
  static const xray_probe p = { "odd", "impossible values", odd_run };
  static xray_report r;
  size_t i, wrong = 0;

  xray_report_init(&r);
  xray_probe_run(&p, m, &r);
  for (i = 0; i < sizeof odd / sizeof *odd; i++) {
    const xray_value *v = xray_report_get(&r, odd[i].name);
    int known = v->source == XRAY_SOURCE_MEASURED;
    if (known != odd[i].possible || (!known && !v->reason[0])) {
      printf("# %s %g: %s (%s)\n", odd[i].name, odd[i].v, known ? "kept" : "unknown", v->reason);
      wrong++;
    }
  }
  tap_ok(wrong == 0, "values no machine can have become unknown with the reason, the rest "
         "stay (%zu wrong of %zu)", wrong, sizeof odd / sizeof *odd);
}

int
main(void)
{
  char err[256] = "";
  static xray_report r;
  const xray_value *v;
  xray_machine *m;
  size_t i;

  tap_plan(7);
  tap_ok(strcmp(xray_version(), XRAY_VERSION) == 0, "library %s, header %s", xray_version(),
         XRAY_VERSION);
  for (i = 0; xray_probe_at(i); i++)
    ;
  tap_ok(i >= 1 && xray_probe_find("icache") == xray_probe_at(0), "%zu probe(s), icache first",
         i);
  tap_ok(xray_machine_simulated("l1i=32K", err, sizeof err) == NULL && err[0],
         "a malformed spec is refused with a message: %s", err);
  m = xray_machine_simulated("l1i=96K:12:64,uop=4096", err, sizeof err);
  tap_ok(m && xray_machine_is_simulated(m), "a simulated machine");
  xray_report_init(&r);
  tap_ok(m && xray_probe_run(xray_probe_find("icache"), m, &r) == 0, "icache runs on it");
  v = xray_report_get(&r, "XRAY_L1I_SIZE");
  tap_near(v ? v->value : 0, 98304, 0.03, "the L1I of the simulated machine");
  invariants(m);
  xray_machine_free(m);
  return tap_done();
}
