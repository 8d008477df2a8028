// SPDX-License-Identifier: MIT
/// @file kyu.h
/// kyu (球, "ball"): a small, exact physics engine for rigid sphere particles. Include only this.
///
///     kyu_world_def wd = kyu_world_def_default();
///     kyu_world *w; kyu_world_create(&wd, &w);
///     kyu_body_def bd = kyu_body_def_default(); bd.position.y = 5;
///     kyu_body_id ball; kyu_body_create(w, &bd, &ball);
///     kyu_collider_def ground = kyu_collider_def_default();   // the plane y = 0
///     kyu_collider_create(w, &ground, NULL);
///     for (int i = 0; i < 60; i++) kyu_world_step(w);
///     kyu_world_destroy(w);
#ifndef KYU_KYU_H
#define KYU_KYU_H

#include "bulk.h"
#include "draw.h"
#include "geometry.h"
#include "insert.h"
#include "measure.h"
#include "query.h"
#include "types.h"
#include "world.h"

#endif
