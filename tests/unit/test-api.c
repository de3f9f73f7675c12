/* A program of a user's: only <xray.h>, linked with libxray itself (which
 * exports xray_* and nothing else), as 'pkg-config --libs xray' gives it;
 * the results are opaque and read through their accessors. */
#include <xray.h>
#include "../tap.h"

#include <string.h>

/* The i-th value is the one of that name, and reads the same through
 * every accessor. */
static int
consistent(const xray_report *r)
{
  size_t i;

  for (i = 0; i < xray_report_count(r); i++) {
    const xray_value *v = xray_report_at(r, i);
    if (!v || xray_report_get(r, xray_value_name(v)) != v || !xray_value_unit(v)[0]
        || !xray_value_desc(v)[0]
        || (xray_value_source(v) == XRAY_SOURCE_UNKNOWN)
            != (xray_value_number(v) != xray_value_number(v))
        || (xray_value_source(v) == XRAY_SOURCE_UNKNOWN && !xray_value_reason(v)[0]))
      return 0;
  }
  return xray_report_at(r, i) == NULL;
}

int
main(void)
{
  char err[256] = "";
  xray_report *r = xray_report_new();
  const xray_value *v, *uop;
  const char *src = "";
  double os = 0;
  int have_os;
  xray_machine *m;
  size_t i;

  tap_plan(11);
  tap_ok(strcmp(xray_version(), XRAY_VERSION) == 0 && XRAY_API_VERSION == 4,
         "library %s, header %s, API version %d", xray_version(), XRAY_VERSION, XRAY_API_VERSION);
  for (i = 0; xray_probe_at(i); i++)
    ;
  tap_ok(i >= 1 && xray_probe_find("icache") == xray_probe_at(0), "%zu probe(s), icache first",
         i);
  tap_ok(xray_machine_simulated("l1i=32K", err, sizeof err) == NULL && err[0],
         "a malformed spec is refused with a message: %s", err);
  m = xray_machine_simulated("l1i=96K:12:64,uop=4096", err, sizeof err);
  tap_ok(m && xray_machine_is_simulated(m) && r && xray_report_count(r) == 0,
         "a simulated machine and an empty report");
  tap_ok(m && r && xray_probe_run(xray_probe_find("icache"), m, r) == 0, "icache runs on it");
  v = r ? xray_report_get(r, "XRAY_L1I_SIZE") : NULL;
  tap_near(v ? xray_value_number(v) : 0, 98304, 0.03, "the L1I of the simulated machine");
  tap_ok(v && xray_value_source(v) == XRAY_SOURCE_MEASURED && xray_value_confirmed(v)
             && strcmp(xray_value_unit(v), "bytes") == 0 && xray_value_method(v)[0]
             && xray_value_seconds(v) >= 0 && !xray_value_effective(v),
         "it is measured and confirmed, in bytes, with its method (%s)",
         v ? xray_value_method(v) : "none");
  have_os = v && xray_value_os(v, &os, &src);
  tap_ok(have_os && os == 98304 && src[0] && !xray_value_disagrees(v),
         "its OS view (the simulator's truth): %g from %s", os, src);
  uop = r ? xray_report_get(r, "XRAY_UOP_CACHE_OPS") : NULL;
  tap_ok(uop && r && xray_report_count(r) >= 2 && consistent(r),
         "%zu values, each the one of its name, unknown exactly when its number is NaN and "
         "then with a reason",
         r ? xray_report_count(r) : 0);
  tap_ok(r && xray_report_get(r, "XRAY_NO_SUCH") == NULL && xray_report_at(r, 1000) == NULL
             && strstr(xray_report_machine(r), "simulated") && xray_report_core_mhz(r) >= 0,
         "no value of another name or past the last; the machine: %s",
         r ? xray_report_machine(r) : "");
  xray_machine_free(m);
  xray_report_free(r);
  r = xray_report_new();
  tap_ok(r && xray_report_count(r) == 0 && xray_report_write(r, stdout, XRAY_FORMAT_SHELL) == 0,
         "a new report is empty and writes nothing but its header");
  xray_report_free(r);
  return tap_done();
}
