/* xray --plot=DIR: DIR/index.html, the one page to look at.  Every value
 * of the report in one table (its result, unit, source, whether a second
 * view confirmed it, the OS's view beside it, the curve that shows it,
 * and how it was measured or why it is unknown), then every curve drawn,
 * each with the values it marks.  The page stands alone: the curves are
 * the SVGs beside it, its style is inline, and it asks the network for
 * nothing (no script, font or style sheet from elsewhere).  The one
 * script is each image's onload attribute, which marks the image as
 * loaded, so that a browser driven from a test can say the curves were
 * drawn. */
#include "cli/cli.h"
#include "xray.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* s with &, <, > and " escaped, for text and attribute values. */
static void
esc(FILE *f, const char *s)
{
  for (; s && *s; s++)
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
}

/* Whether v has a value (a number, or a name). */
static int
known(const xray_value *v)
{
  return !isnan(xray_value_number(v)) || xray_value_text(v);
}

/* Whether figure f marks value name (its marks are space-separated
 * names). */
static int
marks(const struct xray_cli_figure *f, const char *name)
{
  size_t len = strlen(name);
  const char *m = f->marks;

  while ((m = strstr(m, name))) {
    if ((m == f->marks || m[-1] == ' ') && (m[len] == ' ' || m[len] == 0))
      return 1;
    m += len;
  }
  return 0;
}

static void
value_row(FILE *f, const xray_value *v, const struct xray_cli_figure *fig, size_t nfig)
{
  const char *name = xray_value_name(v), *text = xray_value_text(v), *ossrc = NULL;
  size_t i, links = 0;
  double x = xray_value_number(v), os = NAN;
  int has = known(v);

  fputs("<tr class=\"value\" id=\"", f);
  esc(f, name);
  fputs("\"><td class=\"name\">", f);
  esc(f, name);
  fputs("</td><td>", f);
  esc(f, xray_value_desc(v));
  fputs("</td><td class=\"result\">", f);
  if (text)
    esc(f, text);
  else if (has)
    fprintf(f, "%.10g", x);
  else
    fputs("unknown", f);
  fputs("</td><td>", f);
  esc(f, xray_value_unit(v));
  fprintf(f, "</td><td>%s</td><td>%s</td><td>", xray_source_name(xray_value_source(v)),
          !has ? "" : xray_value_confirmed(v) ? "yes" : "no");
  if (xray_value_os(v, &os, &ossrc)) {
    fprintf(f, "%.10g (", os);
    esc(f, ossrc);
    fprintf(f, ")%s", xray_value_disagrees(v) ? ", disagrees" : "");
  }
  fputs("</td><td>", f);
  for (i = 0; i < nfig; i++)
    if (marks(&fig[i], name)) {
      fputs(links++ ? ", <a href=\"#fig-" : "<a href=\"#fig-", f);
      esc(f, fig[i].name);
      fputs("\">", f);
      esc(f, fig[i].name);
      fputs(".svg</a>", f);
    }
  fputs("</td><td class=\"why\">", f);
  esc(f, has ? xray_value_method(v) : xray_value_reason(v));
  fputs("</td></tr>\n", f);
}

int
xray_cli_plot_html(const char *dir, const xray_report *rep, const struct xray_cli_figure *fig,
                   size_t nfig, const struct xray_cli_files *io)
{
  char path[4096];
  size_t i, n = xray_report_count(rep), confirmed = 0, unknown = 0;
  FILE *f;

  snprintf(path, sizeof path, "%s/index.html", dir);
  if (!(f = io->open(0, path)))
    return -1;
  for (i = 0; i < n; i++) {
    const xray_value *v = xray_report_at(rep, i);
    if (!known(v))
      unknown++;
    else if (xray_value_confirmed(v))
      confirmed++;
  }
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>xray: ", f);
  esc(f, xray_report_machine(rep));
  fputs("</title>\n<style>\n"
        "body { font-family: sans-serif; margin: 1.5em; }\n"
        "table { border-collapse: collapse; font-size: 90%; }\n"
        "th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; vertical-align: top; }\n"
        "th { background: #eee; text-align: left; }\n"
        "td.result { text-align: right; white-space: nowrap; }\n"
        "td.why { font-size: 85%; max-width: 40em; }\n"
        "div.curve { display: inline-block; margin: 1em; max-width: 920px; }\n"
        "img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
        "</style>\n</head>\n<body>\n<h1>xray ",
        f);
  esc(f, xray_version());
  fputs(" on ", f);
  esc(f, xray_report_machine(rep));
  fputs("</h1>\n<p>C kernels built with: ", f);
  esc(f, xray_report_compiler(rep));
  fprintf(f,
          ".  %zu values: %zu confirmed by a second view, %zu unknown.  Build systems "
          "should use only confirmed values.</p>\n",
          n, confirmed, unknown);
  fputs("<table id=\"values\">\n<thead><tr><th>value</th><th>what</th><th>result</th>"
        "<th>unit</th><th>source</th><th>confirmed</th><th>OS view</th><th>curve</th>"
        "<th>how measured, or why unknown</th></tr></thead>\n<tbody>\n",
        f);
  for (i = 0; i < n; i++)
    value_row(f, xray_report_at(rep, i), fig, nfig);
  fprintf(f, "</tbody>\n</table>\n<h2>Curves (%zu)</h2>\n", nfig);
  for (i = 0; i < nfig; i++) {
    fputs("<div class=\"curve\" id=\"fig-", f);
    esc(f, fig[i].name);
    fputs("\"><img src=\"", f);
    esc(f, fig[i].name);
    fputs(".svg\" alt=\"", f);
    esc(f, fig[i].name);
    fputs(" curve\" width=\"900\" height=\"560\" onload=\"this.dataset.loaded = 'yes'\">"
          "<p class=\"caption\">",
          f);
    esc(f, fig[i].name);
    fputs(".svg", f);
    if (fig[i].marks[0]) {
      fputs(": marks ", f);
      esc(f, fig[i].marks);
    }
    if (fig[i].caption[0]) {
      fputs("<br>", f);
      esc(f, fig[i].caption);
    }
    fputs("</p></div>\n", f);
  }
  fputs("</body>\n</html>\n", f);
  return io->commit(0, path);
}
