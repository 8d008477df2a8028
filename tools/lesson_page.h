// SPDX-License-Identifier: MIT
// kyu-lesson's page body: one <section> per scenario, one panel per stage of the step.
#ifndef KYU_LESSON_PAGE_H
#define KYU_LESSON_PAGE_H

#include <stdio.h>

#include "lesson_capture.h"

enum { LP_STAGES = 7 };

// The stage titles, in pipeline order (also used by the page's navigation and the tests).
extern const char *const lp_stage_titles[LP_STAGES];

// Writes the scenario's section (hidden unless selected; the page's script shows one stage).
void lp_scenario(FILE *f, const ls_capture *c);

#endif
