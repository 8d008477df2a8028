// SPDX-License-Identifier: MIT
/// @file base.h
/// What every public header needs first: the export macro on kyu's functions.
#ifndef KYU_BASE_H
#define KYU_BASE_H

/// Marks a function of kyu's public API. The library is built with `-fvisibility=hidden`, so
/// libkyu.so exports exactly the functions declared with KYU_API (tests/tools/symbols.sh checks
/// both directions); everything else in the engine stays private to it. For a program that uses
/// kyu the macro is empty.
#if defined(KYU_BUILD) && (defined(__GNUC__) || defined(__clang__))
#define KYU_API __attribute__((visibility("default")))
#else
#define KYU_API
#endif

#endif
