// SPDX-License-Identifier: MIT
// Prints the size and alignment of every public struct as a C compiler lays it out.
#include <stdalign.h>
#include <stdio.h>

#include <kyu/kyu.h>

#include "layout.h"

int main(void) {
#define PRINT(T) printf("%s %zu %zu\n", #T, sizeof(T), alignof(T));
    KYU_PUBLIC_STRUCTS(PRINT)
    return 0;
}
