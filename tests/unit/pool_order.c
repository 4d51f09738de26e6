/*
 * pool_order.c: the naive owner round-robin of pool_order.h, written plainly (quadratic
 * scans, fixed arrays) so that it is obviously right.
 */
#include "pool_order.h"

void reference_order(const int *owner_of, int n, int *order)
{
    int first[16], nfirst = 0, taken[64] = {0}, k = 0;
    for (int j = 0; j < n; j++) {
        int seen = 0;
        for (int f = 0; f < nfirst; f++)
            seen |= first[f] == owner_of[j];
        if (!seen)
            first[nfirst++] = owner_of[j];
    }
    while (k < n)
        for (int f = 0; f < nfirst; f++)
            for (int j = 0; j < n; j++)
                if (!taken[j] && owner_of[j] == first[f]) {
                    taken[j] = 1;
                    order[k++] = j;
                    break;
                }
}
