// SPDX-License-Identifier: MIT
// The public structs whose size and alignment a C++ program must see as the C library does:
// layout.c prints them as C, use.cpp as C++, and tests/tools/cxx.sh compares the two.
#ifndef KYU_TEST_LAYOUT_H
#define KYU_TEST_LAYOUT_H

// The list is laid out by hand: clang-format reflows an X-macro list differently on every run.
// clang-format off
#define KYU_PUBLIC_STRUCTS(X)                                                                      \
    X(kyu_body_id) X(kyu_collider_id) X(kyu_allocator) X(kyu_world_def) X(kyu_body_def)            \
    X(kyu_collider_def) X(kyu_contact_event) X(kyu_impact_event) X(kyu_step_stats)                 \
    X(kyu_contact_event_arrays) X(kyu_impact_event_arrays) X(kyu_hit) X(kyu_box) X(kyu_aabb)       \
    X(kyu_segment) X(kyu_triangle) X(kyu_capsule) X(kyu_cylinder) X(kyu_cone) X(kyu_hull)          \
    X(kyu_contact) X(kyu_convex) X(kyu_convex_callback) X(kyu_hull_face) X(kyu_hull_edge)          \
    X(kyu_hull_data) X(kyu_sat_result) X(kyu_color) X(kyu_debug_draw) X(kyu_query_filter)          \
    X(kyu_query_hit) X(kyu_distance_result) X(kyu_body_force_arrays) X(kyu_contact_arrays)         \
    X(kyu_region_measure) X(kyu_region) X(kyu_size_distribution) X(kyu_inserter_def)               \
    X(kyu_inserter_stats)
// clang-format on

#endif
