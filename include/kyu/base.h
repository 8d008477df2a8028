// SPDX-License-Identifier: MIT
/// @file base.h
/// What every public header needs first: the version, the export macro on kyu's functions, and
/// cglm's anonymous structs for C++.
#ifndef KYU_BASE_H
#define KYU_BASE_H

// The one place the version is written: the Makefile reads these three lines for the library's
// soname (libkyu.so.MAJOR) and for kyu.pc. The ABI policy (docs/building.md): a change to the layout of a
// public struct or to a function's signature or meaning, or a removed function, bumps MAJOR (and
// so the soname); an addition bumps MINOR; a fix bumps PATCH.
#define KYU_VERSION_MAJOR 0 ///< bumped by a change that breaks programs built against an older kyu
#define KYU_VERSION_MINOR 2 ///< bumped by an addition
#define KYU_VERSION_PATCH 0 ///< bumped by a fix

#define KYU_STRINGIFY_(x) #x                ///< a token as a string literal
#define KYU_STRINGIFY(x)  KYU_STRINGIFY_(x) ///< a macro's value as a string literal
/// The version as "MAJOR.MINOR.PATCH", made from the three numbers above.
#define KYU_VERSION_STRING                                                                                   \
    KYU_STRINGIFY(KYU_VERSION_MAJOR) "." KYU_STRINGIFY(KYU_VERSION_MINOR) "." KYU_STRINGIFY(KYU_VERSION_PATCH)

/// kyu's vectors are cglm's `vec3s` and `versors`, whose fields `.x .y .z .w` are members of an
/// anonymous struct. cglm turns those on for C11 but not for C++ (where anonymous structs are a
/// compiler extension that g++ and clang++ accept); kyu turns them on for C++ too, so the same code
/// reads `p.y` in both. Define CGLM_USE_ANONYMOUS_STRUCT to 0 before including kyu to keep cglm's
/// choice, and include kyu before any cglm header (cglm decides the first time it is included).
#if defined(__cplusplus) && !defined(CGLM_USE_ANONYMOUS_STRUCT)
#define CGLM_USE_ANONYMOUS_STRUCT 1
#endif

/// Marks a function of kyu's public API. The library is built with `-fvisibility=hidden`, so
/// libkyu.so exports exactly the functions declared with KYU_API (tests/tools/symbols.sh checks
/// both directions); everything else in the engine stays private to it. A Windows DLL is built
/// with KYU_BUILD_DLL, which exports them the same way. For a program that uses kyu the macro is
/// empty (kyu exports functions only, which a DLL's import library reaches without dllimport).
#if defined(_WIN32) && defined(KYU_BUILD_DLL)
#define KYU_API __declspec(dllexport)
#elif defined(KYU_BUILD) && (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define KYU_API __attribute__((visibility("default")))
#else
#define KYU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The version of the library the program runs with, "MAJOR.MINOR.PATCH" (compare it with
/// KYU_VERSION_STRING, the version of the headers it was built with).
KYU_API const char *kyu_version(void);

#ifdef __cplusplus
}
#endif

#endif
