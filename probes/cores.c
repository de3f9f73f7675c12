/* CPUs, cores and hardware threads (X-Ray Sec. 3.5).
 *
 *   XRAY_NUM_CPUS   CPUs this process may use: its affinity mask (which a
 *                   cpuset also narrows), capped by a CFS bandwidth quota
 *                   (cgroup v2 cpu.max, v1 cpu.cfs_quota_us).  Read from the
 *                   OS, and labelled so.
 *   XRAY_SMT_WAYS   the pairwise test: a kernel that saturates the core's
 *                   adders runs on the first usable CPU and on each other one
 *                   at once; CPUs on which it runs at about half speed are
 *                   hardware threads of the same core.
 *   XRAY_NUM_CORES  usable CPUs over threads per core, when the pairs agree
 *                   with it (each CPU tested found the same number of
 *                   siblings). */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* CPUs allowed by the CFS quota of this process's cgroup; 0 if none. */
static double
cfs_quota(char *how, size_t len)
{
  char line[512], path[700], *p;
  FILE *f = fopen("/proc/self/cgroup", "r");
  double q = 0, per = 0;

  if (!f)
    return 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, "0::", 3) == 0) {           /* cgroup v2 */
      FILE *g;
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", line + 3);
      if ((g = fopen(path, "r"))) {
        char a[32];
        if (fscanf(g, "%31s %lf", a, &per) == 2 && strcmp(a, "max") != 0 && per > 0) {
          q = atof(a);
          snprintf(how, len, "cgroup v2 cpu.max %s %.0f", a, per);
        }
        fclose(g);
      }
    } else if ((p = strstr(line, ":cpu,cpuacct:")) || (p = strstr(line, ":cpu:"))) {
      FILE *g;
      long quota = -1, period = 0;
      const char *sub = strchr(p + 1, ':') + 1;
      snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_quota_us", sub);
      if ((g = fopen(path, "r"))) {
        if (fscanf(g, "%ld", &quota) != 1)
          quota = -1;
        fclose(g);
      }
      snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_period_us", sub);
      if ((g = fopen(path, "r"))) {
        if (fscanf(g, "%ld", &period) != 1)
          period = 0;
        fclose(g);
      }
      if (quota > 0 && period > 0) {
        q = (double) quota;
        per = (double) period;
        snprintf(how, len, "cgroup v1 cfs quota %ld/%ld", quota, period);
      }
    }
  }
  fclose(f);
  return q > 0 && per > 0 ? q / per : 0;
}

/* Whether the first CPU that is not a sibling of cpu[0] (its pair with
 * cpu[0] ran at speed sp[k], at least XRAY__SAME_CORE) has as many
 * siblings among cpu[0..n-1] as cpu[0] has; yes where there is none. */
static int
another_core_agrees(xray_machine *m, const int *cpu, const double *sp, int n, int siblings)
{
  int other = -1, k, found = 0;
  char kernel[32];

  for (k = 1; k < n && other < 0; k++)
    if (sp[k] >= XRAY__SAME_CORE)
      other = k;
  if (other < 0)
    return 1;
  snprintf(kernel, sizeof kernel, "pair-from/%d", cpu[other]);
  for (k = 0; k < n; k++)
    if (k != other && xray__pair_median(m, "cores", kernel, cpu[other], cpu[k]) < XRAY__SAME_CORE)
      found++;
  return found == siblings;
}

static int
run_cores(xray_machine *m, xray_report *r)
{
  xray_value *cpus = xray__report_param(r, "XRAY_NUM_CPUS", NULL, NULL);
  xray_value *cores = xray__report_param(r, "XRAY_NUM_CORES", NULL, NULL);
  xray_value *smt = xray__report_param(r, "XRAY_SMT_WAYS", NULL, NULL);
  int cpu[XRAY__MAX_CPUS];
  double sp[XRAY__MAX_CPUS];
  char how[200], qhow[100] = "";
  double quota = 0, speed, deadline = xray__now() + m->budget;
  int n, usable, j, siblings = 0, tested = 0;

  if (!cpus || !cores || !smt)
    return -1;
  n = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS);
  if (n < 1) {
    xray__value_unknown(cpus, "the affinity mask cannot be read here");
    xray__value_unknown(cores, "the usable CPUs are unknown");
    xray__value_unknown(smt, "the usable CPUs are unknown");
    return 0;
  }
  if (m->timed)
    quota = cfs_quota(qhow, sizeof qhow);
  usable = n;
  if (quota > 0 && ceil(quota - 1e-9) < usable)
    usable = (int) ceil(quota - 1e-9);
  snprintf(how, sizeof how, "affinity mask: %d CPUs%s%s", n, qhow[0] ? "; " : "", qhow);
  xray__value_measured(cpus, usable, how);
  cpus->source = XRAY_SOURCE_OS;

  if (n < 2) {
    xray__value_unknown(smt, "one usable CPU: nothing to pair it with");
    xray__value_measured(cores, 1, "one usable CPU");
    return 0;
  }
  if (n > XRAY__MAX_CPUS)
    n = XRAY__MAX_CPUS;
  /* The first CPU against every other, within the budget. */
  for (j = 1; j < n; j++) {
    speed = xray__pair_median(m, "cores", "pair", cpu[0], cpu[j]);
    if (isnan(speed)) {
      xray__value_unknown(smt, m->error);
      xray__value_unknown(cores, m->error);
      return 0;
    }
    sp[j] = speed;
    tested++;
    siblings += speed < XRAY__SAME_CORE;
    if (xray__now() > deadline)
      break;
  }
  if (tested < n - 1) {
    snprintf(how, sizeof how, "the budget allowed only %d of %d pairs", tested, n - 1);
    xray__value_unknown(smt, how);
    xray__value_unknown(cores, how);
    return 0;
  }
  snprintf(how, sizeof how, "pairwise test of CPU %d against %d others: %d share its core",
           cpu[0], tested, siblings);
  xray__value_measured(smt, siblings + 1, how);
  if (n % (siblings + 1) == 0) {
    /* Check one more core, if there is one, to back the division. */
    int ok =
        n < 2 * (siblings + 1) || siblings == 0 || another_core_agrees(m, cpu, sp, n, siblings);
    snprintf(how, sizeof how, "%d usable CPUs / %d threads per core%s", n, siblings + 1,
             ok ? "" : " (another core's pairs disagree)");
    xray__value_measured(cores, n / (siblings + 1), how);
    cores->unconfirmed = !ok;
  } else
    xray__value_unknown(cores, "the usable CPUs do not divide into cores of equal size");
  return 0;
}

const xray_probe xray__probe_cores = { "cores", "usable CPUs, physical cores, SMT ways",
                                       run_cores };
