// SPDX-License-Identifier: MIT
/// @file sweeps.h
/// Part of kyu's pure geometry (include it through kyu/geometry.h). Being written: see issue 5.
#ifndef KYU_SWEEPS_H
#define KYU_SWEEPS_H

#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
