// SPDX-License-Identifier: MIT
// kyu-lesson: one collision, step by step. Sets up small scenarios with the public API, runs each
// to the step in which its collision happens and writes ONE self-contained HTML page (inline SVG,
// CSS and script; no files, no network) that walks through that step, one panel per stage of the
// pipeline, with the engine's real numbers. Exit 0 ok, 2 bad arguments, 1 internal error.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_capture.h"
#include "lesson_page.h"

static const char *const css =
    "body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}\n"
    "header{background:#1f2a44;color:#fff;padding:10px 18px}header h1{font-size:20px;margin:0 0 6px}\n"
    "nav button,.controls button{font:inherit;margin:2px 4px 2px 0;padding:4px 12px;border-radius:5px;"
    "border:1px solid #8894aa;background:#fff;color:#1d2430;cursor:pointer}\n"
    "nav button.on{background:#ffd166;border-color:#c99a20}\n"
    "main{max-width:980px;margin:0 auto;padding:8px 18px 80px}\n"
    ".sc-title{font-size:19px;margin:10px 0 4px}.intro{margin:0 0 8px}\n"
    ".js .scenario{display:none}.js .scenario.on{display:block}\n"
    ".js .stage{display:none}.js .stage.on{display:block}\n"
    ".stage{background:#fff;border:1px solid #d5dae3;border-radius:8px;padding:8px 14px;margin:10px 0}\n"
    ".stage h2{font-size:17px;margin:4px 0 8px;color:#1f2a44}\n"
    ".row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\n"
    "svg.pic{background:#eef3fa;border:1px solid #cfd8e6;border-radius:4px;max-width:100%;height:auto}\n"
    "svg.plot{background:#fff;border:1px solid #cfd8e6;border-radius:4px}\n"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #d5dae3;padding:2px "
    "7px;"
    "text-align:left;font-variant-numeric:tabular-nums}th{background:#eef1f6}\n"
    ".verdict{font-weight:600;padding:4px "
    "8px;border-radius:4px}.verdict.agree{background:#dff3e3;color:#145a23}"
    ".verdict.differ{background:#fde2e1;color:#8a1410}\n"
    ".controls{position:fixed;bottom:0;left:0;right:0;background:#1f2a44;color:#fff;padding:8px 18px;"
    "display:flex;align-items:center;gap:10px}\n"
    ".engine-note{font-size:13px;color:#555}\n"
    ".body{stroke:#1d2430;stroke-width:1;fill-opacity:.9}.ghost{fill-opacity:.18;stroke-dasharray:3 3}"
    ".asleep{filter:brightness(.4);stroke-width:2}\n"
    ".name{font:bold 11px sans-serif;fill:#000}.small{font:11px sans-serif;fill:#333}\n"
    ".sweep{fill:#3a7bd5;fill-opacity:.12;stroke:#3a7bd5;stroke-width:1.2}\n"
    ".aabb{fill:none;stroke:#444;stroke-dasharray:5 "
    "3}.engine{fill:none;stroke:#d00;stroke-width:1;stroke-dasharray:2 2}"
    ".thin{stroke-width:1}\n"
    ".cell{fill:#9aa3b0;fill-opacity:.18;stroke:#7a8494;stroke-width:.7}.cand{stroke:#9c27b0;stroke-width:2;"
    "stroke-dasharray:6 3}\n"
    ".wall{fill:#8d6e63;fill-opacity:.8;stroke:#4e342e}.wall.ghost{fill-opacity:.2}.ground{fill:#c9bfae}\n"
    ".arrow{stroke-width:2.2}.v{stroke:#222}.vn{stroke:#d32f2f}.vt{stroke:#1976d2}.vr{stroke:#2e7d32}.n{"
    "stroke:#ff8f00}"
    ".vw{stroke:#4e342e}\n"
    ".point{fill:#ff8f00;stroke:#000}\n"
    ".kept{stroke:#2e7d32;stroke-width:3}.new{stroke:#ff6f00;stroke-width:3;stroke-dasharray:6 3}"
    ".ended{stroke:#999;stroke-width:2;stroke-dasharray:2 3}\n"
    "tr.kept td:first-child{border-left:4px solid #2e7d32}tr.new td:first-child{border-left:4px solid "
    "#ff6f00}"
    "tr.ended td:first-child{border-left:4px solid #999}\n"
    ".axis{stroke:#777}.curve{fill:none;stroke:#3a7bd5;stroke-width:2}.root{fill:#d32f2f}\n"
    ".k{font-weight:600}.vn-k{color:#d32f2f}.vt-k{color:#1976d2}.vr-k{color:#2e7d32}.kept-k{color:#2e7d32}"
    ".cand-k{color:#9c27b0}.new-k{color:#ff6f00}.ended-k{color:#777}.engine-k{color:#d00}\n"
    ".swatch{display:inline-block;width:14px;height:14px;border:1px solid #333;vertical-align:middle}\n";

// Stage navigation: the URL hash (#scenario=2&stage=3) says what is shown, so a page can be linked
// (and tested headless) at any stage; Prev/Next and the arrow keys move through the stages.
static const char *const script =
    "(function(){\n"
    "document.documentElement.className='js';\n"
    "var secs=[].slice.call(document.querySelectorAll('.scenario'));\n"
    "var sc=0,st=0;\n"
    "function stages(){return secs[sc].querySelectorAll('.stage');}\n"
    "function read(){var h=location.hash.replace('#','').split('&');\n"
    " h.forEach(function(kv){var p=kv.split('='),n=parseInt(p[1],10);if(isNaN(n))return;\n"
    "  if(p[0]==='scenario'){for(var i=0;i<secs.length;i++)if(+secs[i].dataset.scenario===n)sc=i;}\n"
    "  if(p[0]==='stage')st=n-1;});}\n"
    "function show(){var ss=stages();st=Math.max(0,Math.min(st,ss.length-1));\n"
    " secs.forEach(function(s,i){s.classList.toggle('on',i===sc);});\n"
    " [].forEach.call(ss,function(s,i){s.classList.toggle('on',i===st);});\n"
    " [].forEach.call(document.querySelectorAll('nav "
    "button'),function(b,i){b.classList.toggle('on',i===sc);});\n"
    " var t=ss[st].querySelector('h2').textContent;\n"
    " document.getElementById('pos').textContent='Scenario '+secs[sc].dataset.scenario+', stage '+(st+1)+' "
    "of '+ss.length+': '+t;\n"
    " document.title='kyu lesson: '+t;\n"
    " document.getElementById('prev').disabled=st===0;document.getElementById('next').disabled=st===ss."
    "length-1;}\n"
    "function "
    "go(){history.replaceState(null,'','#scenario='+secs[sc].dataset.scenario+'&stage='+(st+1));show();}\n"
    "document.getElementById('prev').onclick=function(){st--;go();};\n"
    "document.getElementById('next').onclick=function(){st++;go();};\n"
    "[].forEach.call(document.querySelectorAll('nav "
    "button'),function(b,i){b.onclick=function(){sc=i;st=0;go();};});\n"
    "document.addEventListener('keydown',function(e){if(e.key==='ArrowRight'){st++;go();}if(e.key==='"
    "ArrowLeft'){st--;go();}});\n"
    "window.addEventListener('hashchange',function(){read();show();});\n"
    "read();show();\n"
    "})();\n";

// Arrowheads for every arrow class, defined once and used by all pictures of the page.
static void arrow_markers(FILE *f) {
    static const struct {
        const char *cls, *color;
    } heads[] = {{"v", "#222"},     {"vn", "#d32f2f"}, {"vt", "#1976d2"},
                 {"vr", "#2e7d32"}, {"n", "#ff8f00"},  {"vw", "#4e342e"}};
    fprintf(f, "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\n");
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
        fprintf(f,
                "<marker id=\"head-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
                "markerHeight=\"7\" "
                "orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"%s\"/></marker>\n",
                heads[i].cls, heads[i].color);
    fprintf(f, "</defs></svg>\n");
}

static void page_head(FILE *f, const ls_capture *caps, int n) {
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\" class=\"nojs\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
            "<title>kyu lesson: one collision, step by step</title>\n<style>\n%s</style></head>\n<body>\n",
            css);
    arrow_markers(f);
    fprintf(f, "<header><h1>kyu lesson: one collision, step by step</h1>\n<nav aria-label=\"scenarios\">");
    for (int i = 0; i < n; i++)
        fprintf(f, "<button type=\"button\">%d. %s</button>", caps[i].scenario, caps[i].title);
    fprintf(
        f,
        "</nav></header>\n<main>\n<p>Each scenario runs in kyu (the public API only) to the step in which "
        "its "
        "collision happens; the panels walk through that one step in the engine's order. Every number marked "
        "<em>engine</em> was read from the engine for that step; the lesson's own arithmetic stands beside "
        "it.</p>\n");
}

static void page_tail(FILE *f) {
    fprintf(f,
            "</main>\n<div class=\"controls\"><button type=\"button\" id=\"prev\">&#9664; Prev</button>"
            "<button type=\"button\" id=\"next\">Next &#9654;</button><span id=\"pos\">all stages (no "
            "script)</span></div>\n"
            "<script>\n%s</script>\n</body></html>\n",
            script);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: kyu-lesson [--out FILE.html] [--scenario N]\n"
            "  writes one self-contained HTML page walking through one step of a collision, stage by stage;\n"
            "  scenarios: 1 two spheres meeting, 2 a ball hitting a moving wall, 3 a sphere dropping into a\n"
            "  resting pile (default: all three, with a selector). Default --out lesson.html.\n");
}

static int parse_args(int argc, char **argv, const char **out, int *only) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout), -1;
        if (i + 1 < argc && !strcmp(argv[i], "--out")) {
            *out = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "--scenario")) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > LS_SCENARIOS) {
                fprintf(stderr, "kyu-lesson: --scenario takes 1..%d (got '%s')\n", LS_SCENARIOS, argv[i]);
                return 2;
            }
            *only = (int)n;
        } else {
            fprintf(stderr, "kyu-lesson: unknown or incomplete argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    return 0;
}

// One line per scenario on stdout: what the page shows, for scripts and tests.
static void summary(const ls_capture *c) {
    int asleep = 0;
    for (int i = 0; i < c->nb; i++) asleep += !c->b[i].awake1;
    printf("scenario %d: step %d, toi engine %.7f lesson %.7f sweep %.7f (%s), reflection %s, %d contacts, "
           "%d of %d asleep after the step\n",
           c->scenario, c->step, c->toi.t_engine, c->toi.t_naive, c->toi.sweep.t,
           c->toi.agree ? "agree" : "DIFFER",
           c->refl.single ? (c->refl.agree ? "agree" : "DIFFER") : "n/a (several impacts)", c->stats.contacts,
           asleep, c->nb);
}

int main(int argc, char **argv) {
    const char *out = "lesson.html";
    int only = 0;
    int rc = parse_args(argc, argv, &out, &only);
    if (rc) return rc < 0 ? 0 : rc;
    static ls_capture caps[LS_SCENARIOS];
    int n = 0;
    for (int s = 1; s <= LS_SCENARIOS; s++) {
        if (only && s != only) continue;
        if (ls_run(s, &caps[n])) {
            fprintf(stderr, "kyu-lesson: scenario %d: %s\n", s, caps[n].error);
            return 1;
        }
        n++;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "kyu-lesson: %s: cannot write: %s\n", out, strerror(errno));
        return 2;
    }
    page_head(f, caps, n);
    for (int i = 0; i < n; i++) lp_scenario(f, &caps[i]);
    page_tail(f);
    if (fclose(f) != 0) {
        fprintf(stderr, "kyu-lesson: %s: write failed: %s\n", out, strerror(errno));
        return 1;
    }
    for (int i = 0; i < n; i++) summary(&caps[i]);
    printf("kyu-lesson: wrote %s (%d scenario%s, %d stages each)\n", out, n, n == 1 ? "" : "s", LP_STAGES);
    return 0;
}
