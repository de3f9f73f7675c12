/* Results and their output formats: text for people, JSON with provenance,
 * shell assignments and C defines for build systems. */
#include "run/run.h"
#include "machine/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const source_names[] = { "measured", "override", "os", "default", "unknown" };

const char *
xray_source_name(xray_source s)
{
  return (unsigned) s < sizeof source_names / sizeof *source_names ? source_names[s] : "unknown";
}

void
xray__report_init(xray_report *r)
{
  memset(r, 0, sizeof *r);
}

xray_value *
xray__report_add(xray_report *r, const char *name, const char *desc, const char *unit)
{
  xray_value *v;

  if (r->n == XRAY__REPORT_MAX)
    return NULL;
  v = &r->v[r->n++];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", name);
  snprintf(v->desc, sizeof v->desc, "%s", desc);
  snprintf(v->unit, sizeof v->unit, "%s", unit);
  v->source = XRAY_SOURCE_UNKNOWN;
  v->value = NAN;
  v->exact = NAN;
  v->ns = NAN;
  v->gbs = NAN;
  return v;
}

xray_value *
xray__report_param(xray_report *r, const char *name, const char *a, const char *b)
{
  const struct xray__param *p = xray__param_find(name);
  char desc[96];
  xray_value *v;

  if (!p)
    return NULL;
  snprintf(desc, sizeof desc, p->desc, a ? a : "", b ? b : "");
  if ((v = xray__report_add(r, name, desc, p->unit)))
    snprintf(v->probe, sizeof v->probe, "%s", p->probe);
  return v;
}

int
xray__report_ran(const xray_report *r, const char *probe)
{
  size_t i;

  for (i = 0; r && i < r->n; i++)
    if (strcmp(r->v[i].probe, probe) == 0)
      return 1;
  return 0;
}

/* --- the public, opaque view of a report (xray.h) ------------------------ */

xray_report *
xray_report_new(void)
{
  xray_report *r = malloc(sizeof *r);

  if (r)
    xray__report_init(r);
  return r;
}

void
xray_report_free(xray_report *r)
{
  if (r)
    xray_report_free(r->deps);
  free(r);
}

size_t
xray_report_count(const xray_report *r)
{
  return r->n;
}

const xray_value *
xray_report_at(const xray_report *r, size_t i)
{
  return i < r->n ? &r->v[i] : NULL;
}

const xray_value *
xray_report_get(const xray_report *r, const char *name)
{
  size_t i;

  for (i = 0; i < r->n; i++)
    if (strcmp(r->v[i].name, name) == 0)
      return &r->v[i];
  return NULL;
}

const char *
xray_report_machine(const xray_report *r)
{
  return r->machine;
}

const char *
xray_report_compiler(const xray_report *r)
{
  return r->compiler;
}

double
xray_report_core_mhz(const xray_report *r)
{
  return r->core_mhz;
}

const char *
xray_value_name(const xray_value *v)
{
  return v->name;
}

const char *
xray_value_desc(const xray_value *v)
{
  return v->desc;
}

const char *
xray_value_unit(const xray_value *v)
{
  return v->unit;
}

xray_source
xray_value_source(const xray_value *v)
{
  return v->source;
}

double
xray_value_number(const xray_value *v)
{
  return v->source == XRAY_SOURCE_UNKNOWN ? NAN : v->value;
}

double
xray_value_exact(const xray_value *v)
{
  return v->source == XRAY_SOURCE_UNKNOWN ? NAN : v->exact;
}

double
xray_value_ns(const xray_value *v)
{
  return v->source == XRAY_SOURCE_UNKNOWN ? NAN : v->ns;
}

int
xray_value_confirmed(const xray_value *v)
{
  return v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed;
}

int
xray_value_effective(const xray_value *v)
{
  return v->effective;
}

int
xray_value_os(const xray_value *v, double *value, const char **source)
{
  if (!v->have_os)
    return 0;
  if (value)
    *value = v->os_value;
  if (source)
    *source = v->os_source;
  return 1;
}

int
xray_value_disagrees(const xray_value *v)
{
  return v->disagree;
}

const char *
xray_value_text(const xray_value *v)
{
  return v->source != XRAY_SOURCE_UNKNOWN && v->text[0] ? v->text : NULL;
}

const char *
xray_value_method(const xray_value *v)
{
  return v->method;
}

const char *
xray_value_reason(const xray_value *v)
{
  return v->reason;
}

double
xray_value_seconds(const xray_value *v)
{
  return v->seconds;
}

int
xray_format_parse(const char *s, xray_format *f)
{
  static const char *const names[] = { "text", "json", "shell", "header" };
  size_t i;

  for (i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(s, names[i]) == 0) {
      *f = (xray_format) i;
      return 0;
    }
  return -1;
}

/* A value with a number: every format prints it as one (no NaN or
 * infinity, which JSON and C lack). */
static int
known(const xray_value *v)
{
  return v->source != XRAY_SOURCE_UNKNOWN && isfinite(v->value);
}

static void
num(FILE *f, double x)
{
  if (x == floor(x) && fabs(x) < 1e15)
    fprintf(f, "%.0f", x);
  else
    fprintf(f, "%.6g", x);
}

/* A name's characters are letters, digits and "._-," (the OS's names are
 * made so), which no format quotes further. */
static void
value_out(FILE *f, const xray_value *v, const char *quote)
{
  if (v->text[0])
    fprintf(f, "%s%s%s", quote, v->text, quote);
  else
    num(f, v->value);
}

/* Strings from outside (the machine's name, the user's compiler and flags,
 * reasons that quote them) are written so that no format can be broken by
 * them: a JSON string holds whole UTF-8 characters only
 * (xray__json_string); a comment of the shell or C formats, which build
 * systems eval or #include, holds no line break or other control
 * character, and a C comment no end-of-comment mark. */
enum { PLAIN, C_COMMENT };

/* s on one line: control characters become spaces; in a C comment, the
 * end mark is broken apart. */
static void
line_str(FILE *f, const char *s, int where)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char) *s;
    if (c < 0x20 || c == 0x7f)
      fputc(' ', f);
    else {
      fputc(c, f);
      if (where == C_COMMENT && c == '*' && s[1] == '/')
        fputc(' ', f);
    }
  }
}

/* lead, then s on one line (as line_str), then tail. */
static void
put_line(FILE *f, const char *lead, const char *s, int where, const char *tail)
{
  fputs(lead, f);
  line_str(f, s, where);
  fputs(tail, f);
}

static void
write_json(const xray_report *r, FILE *f)
{
  size_t i;

  fprintf(f, "{\n  \"xray_version\": ");
  xray__json_string(f, xray_version());
  fprintf(f, ",\n  \"machine\": ");
  xray__json_string(f, r->machine);
  fprintf(f, ",\n  \"compiler\": ");
  xray__json_string(f, r->compiler);
  fprintf(f, ",\n  \"core_mhz\": ");
  if (r->core_mhz > 0)
    fprintf(f, "%.1f", r->core_mhz);
  else
    fprintf(f, "null");
  fprintf(f, ",\n  \"seconds\": %.3f,\n  \"values\": [", r->seconds);
  for (i = 0; i < r->n; i++) {
    const xray_value *v = &r->v[i];
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    xray__json_string(f, v->name);
    fprintf(f, ", \"value\": ");
    if (known(v) && v->text[0])
      xray__json_string(f, v->text);
    else if (known(v))
      num(f, v->value);
    else
      fprintf(f, "null");
    fprintf(f, ", \"unit\": ");
    xray__json_string(f, v->unit);
    if (known(v) && isfinite(v->exact))
      fprintf(f, ", \"exact\": %.6g", v->exact);
    if (known(v) && isfinite(v->ns))
      fprintf(f, ", \"ns\": %.6g", v->ns);
    if (known(v) && isfinite(v->gbs))
      fprintf(f, ", \"gb_per_s\": %.6g", v->gbs);
    if (v->effective)
      fprintf(f, ", \"effective\": true");
    fprintf(f, ", \"source\": ");
    xray__json_string(f, source_names[v->source]);
    fprintf(f, ",\n     \"os\": ");
    if (v->have_os) {
      fprintf(f, "{\"value\": ");
      num(f, v->os_value);
      fprintf(f, ", \"source\": ");
      xray__json_string(f, v->os_source);
      fprintf(f, "}");
    } else
      fprintf(f, "null");
    fprintf(f, ", \"disagree\": %s, \"confirmed\": %s, \"seconds\": %.3f",
            v->disagree ? "true" : "false", known(v) && !v->unconfirmed ? "true" : "false",
            v->seconds);
    /* The probe that gives the value (a kind of core's copy keeps it):
     * what to run again for it alone. */
    if (v->probe[0]) {
      fprintf(f, ", \"probe\": ");
      xray__json_string(f, v->probe);
    }
    fprintf(f, ",\n     \"description\": ");
    xray__json_string(f, v->desc);
    fprintf(f, ",\n     \"method\": ");
    xray__json_string(f, v->method);
    if (!known(v)) {
      fprintf(f, ",\n     \"reason\": ");
      xray__json_string(f, v->reason);
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  ]\n}\n");
}

static void
write_text(const xray_report *r, FILE *f)
{
  size_t i;

  fprintf(f, "xray %s on ", xray_version());
  put_line(f, "", r->machine, PLAIN, "\n");
  if (r->compiler[0])
    put_line(f, "C kernels built with: ", r->compiler, PLAIN, "\n");
  for (i = 0; i < r->n; i++) {
    const xray_value *v = &r->v[i];
    int yes_no = !v->text[0] && strcmp(v->unit, "boolean") == 0;
    fprintf(f, "%-22s ", v->name);
    if (known(v)) {
      /* A yes/no value reads as such; shell and JSON keep its 1 or 0. */
      if (yes_no)
        fputs(v->value ? "yes" : "no", f);
      else
        value_out(f, v, "");
      if (!v->text[0] && !yes_no)
        fprintf(f, " %s", v->unit);
      if (!isnan(v->ns))
        fprintf(f, " (%.1f ns)", v->ns);
      if (!isnan(v->gbs))
        fprintf(f, " (%.1f GB/s)", v->gbs);
      fprintf(f, " (%s%s%s", source_names[v->source],
              v->effective ? ", effective: shared with other cores" : "",
              v->unconfirmed ? ", UNCONFIRMED: no second view agrees" : "");
    } else
      put_line(f, "unknown (", v->reason, PLAIN, "");
    if (v->have_os) {
      fprintf(f, "; %s says ", v->os_source);
      if (yes_no)
        fputs(v->os_value ? "yes" : "no", f);
      else
        num(f, v->os_value);
      if (v->disagree)
        fprintf(f, ", DISAGREES");
    }
    fprintf(f, "; %.2f s)\n    %s\n", v->seconds, v->desc);
    put_line(f, "    ", v->method, PLAIN, "\n");
  }
}

static void
write_shell(const xray_report *r, FILE *f)
{
  size_t i;

  fprintf(f, "# xray %s on ", xray_version());
  put_line(f, "", r->machine, PLAIN, "\n");
  fprintf(f, "# seconds: %.2f\n", r->seconds);
  if (r->compiler[0])
    put_line(f, "# compiler: ", r->compiler, PLAIN, "\n");
  for (i = 0; i < r->n; i++) {
    const xray_value *v = &r->v[i];
    if (known(v)) {
      if (v->unconfirmed)
        fprintf(f, "# %s unconfirmed: no second view agrees (see its method in the text output)\n", v->name);
      if (v->source != XRAY_SOURCE_MEASURED)
        fprintf(f, "# %s from: %s\n", v->name, source_names[v->source]);
      fprintf(f, "%s=", v->name);
      value_out(f, v, "'");
      fprintf(f, "\n");
    } else {
      fprintf(f, "# %s unknown: ", v->name);
      put_line(f, "", v->reason, PLAIN, "\n");
    }
  }
}

static void
write_header(const xray_report *r, FILE *f)
{
  size_t i;

  fprintf(f, "/* Generated by xray %s on ", xray_version());
  put_line(f, "", r->machine, C_COMMENT, ". */\n");
  if (r->compiler[0])
    put_line(f, "/* C kernels built with: ", r->compiler, C_COMMENT, " */\n");
  for (i = 0; i < r->n; i++) {
    const xray_value *v = &r->v[i];
    fprintf(f, "\n/* %s, %s (%s) */\n", v->desc, v->unit, source_names[v->source]);
    if (known(v)) {
      fprintf(f, "#define %s ", v->name);
      value_out(f, v, "\"");
      fprintf(f, "\n");
    } else
      fprintf(f, "/* #undef %s */\n", v->name);
  }
}

int
xray_report_write(const xray_report *r, FILE *f, xray_format fmt)
{
  switch (fmt) {
  case XRAY_FORMAT_JSON:
    write_json(r, f);
    break;
  case XRAY_FORMAT_SHELL:
    write_shell(r, f);
    break;
  case XRAY_FORMAT_HEADER:
    write_header(r, f);
    break;
  default:
    write_text(r, f);
    break;
  }
  return ferror(f) ? -1 : 0;
}
