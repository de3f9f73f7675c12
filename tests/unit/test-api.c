/* A program of a user's: only <xray.h>, linked with libxray itself (which
 * exports xray_* and nothing else), as 'pkg-config --libs xray' gives it;
 * the results are opaque and read through their accessors. */
#include <xray.h>
#include "../tap.h"

#include <math.h>
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

  tap_plan(16);
  tap_ok(strcmp(xray_version(), XRAY_VERSION) == 0 && XRAY_API_VERSION == 8,
         "library %s, header %s, API version %d", xray_version(), XRAY_VERSION, XRAY_API_VERSION);
  for (i = 0; xray_probe_at(i); i++)
    ;
  tap_ok(i >= 1 && xray_probe_find("icache") == xray_probe_at(0), "%zu probe(s), icache first",
         i);
  tap_ok(xray_machine_simulated("l1i=32K", err, sizeof err) == NULL && err[0],
         "a malformed spec is refused with a message: %s", err);
  m = xray_machine_simulated("l1i=96K:12:64,uop=4096", err, sizeof err);
  tap_ok(m && !xray_machine_is_timed(m) && !xray_machine_is_hardware(m) && r
             && xray_report_count(r) == 0,
         "a simulated machine (neither timed nor hardware) and an empty report");
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

  /* Values given: a name xray reports, finite; the last of a name counts,
   * and the dcache probe the lru probe rests on does not run (the L1D's
   * latency from it would be in lru's method). */
  m = xray_machine_simulated("l1d=32K:8:64", err, sizeof err);
  tap_ok(m && xray_machine_give(m, "XRAY_NO_SUCH", 1, 1) == -1
             && xray_machine_give(m, "XRAY_L1D_SIZE", NAN, 1) == -1
             && xray_machine_give(m, "XRAY_L1D_SIZE", 16384, 1) == 0
             && xray_machine_give(m, "XRAY_L1D_SIZE", 32768, 1) == 0
             && xray_machine_give(m, "XRAY_L1D_LINE", 64, 1) == 0,
         "xray_machine_give takes names xray reports and finite values only");
  r = xray_report_new();
  if (m && r)
    xray_probe_run(xray_probe_find("lru"), m, r);
  v = r ? xray_report_get(r, "XRAY_L1D_LRU") : NULL;
  tap_ok(v && xray_value_number(v) == 1 && strstr(xray_value_method(v), "(32768 bytes)")
             && !xray_report_get(r, "XRAY_L1D_SIZE"),
         "lru rests on the given L1D, which is not reported: %s", v ? xray_value_method(v) : "");
  xray_report_free(r);
  xray_machine_free(m);

  /* Kinds of core: a simulated machine of two, each measured on its own
   * machine, their values added with their suffixes and their names as
   * text values. */
  {
    xray_kinds *k = xray_kinds_find("kind=big,cpus=2,l1d=48K:12:64;kind=little,cpus=4,l1d=32K:8:64",
                                    err, sizeof err);
    xray_report *all = xray_report_new(), *one = xray_report_new();
    const xray_value *a, *b, *name;
    tap_ok(k && xray_kinds_count(k) == 2 && strcmp(xray_kinds_name(k, 1), "little") == 0
               && strcmp(xray_kinds_cpus(k, 1), "2-5") == 0 && xray_kinds_name(k, 2) == NULL,
           "two kinds: %s on %s, %s on %s", k ? xray_kinds_name(k, 0) : err,
           k ? xray_kinds_cpus(k, 0) : "", k ? xray_kinds_name(k, 1) : "",
           k ? xray_kinds_cpus(k, 1) : "");
    for (i = 0; k && all && one && i < 2; i++) {
      xray_machine *km = xray_kinds_machine(k, i, err, sizeof err);
      xray_report *rep = i ? one : all;
      if (km)
        xray_probe_run(xray_probe_find("dcache"), km, rep);
      xray_machine_free(km);
    }
    if (k && all && one) {
      xray_report_add_kind(all, all, 0);
      xray_report_add_kind(all, one, 1);
      xray_report_add_kinds(all, k);
    }
    a = all ? xray_report_get(all, "XRAY_L1D_SIZE_KIND1") : NULL;
    b = all ? xray_report_get(all, "XRAY_L1D_SIZE_KIND2") : NULL;
    tap_ok(a && b && xray_value_number(a) == 49152 && xray_value_number(b) == 32768
               && xray_value_text(a) == NULL,
           "each kind's L1D under its suffix: %g and %g", a ? xray_value_number(a) : -1,
           b ? xray_value_number(b) : -1);
    name = all ? xray_report_get(all, "XRAY_KIND2_NAME") : NULL;
    tap_ok(name && xray_value_text(name) && strcmp(xray_value_text(name), "little") == 0
               && xray_value_source(name) == XRAY_SOURCE_OS,
           "kind 2's name is the text value '%s', from the OS",
           name && xray_value_text(name) ? xray_value_text(name) : "");
    xray_report_free(all);
    xray_report_free(one);
    xray_kinds_free(k);
  }
  return tap_done();
}
