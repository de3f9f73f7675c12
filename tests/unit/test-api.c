/* A program of a user's: only <xray.h>, linked with libxray itself (which
 * exports xray_* and nothing else), as 'pkg-config --libs xray' gives it. */
#include <xray.h>
#include "../tap.h"

#include <string.h>

int
main(void)
{
  char err[256] = "";
  static xray_report r;
  const xray_value *v;
  xray_machine *m;
  size_t i;

  tap_plan(6);
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
  xray_machine_free(m);
  return tap_done();
}
