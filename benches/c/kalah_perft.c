/* Plain C Kalah(6,4) perft: the floor `scripts/perft-vs-c.sh` compares `arena perft` with.
 *
 * Deliberately straightforward: an array of 14 pits, no tables, seeds sown one at a time, the
 * same rules as the engine's default `kalah` (shared/rules.md, docs/rules.md): the opponent's
 * store is skipped, a last seed in the own store earns an extra turn (also on the game's first
 * sow), a last seed in an own empty pit captures it with the opposite pit's seeds if that pit is
 * not empty, and the game ends as soon as either row is empty, each player taking the seeds left
 * in their own pits (owner sweep). A finished game has no moves. Like `arena perft`, it counts
 * for each depth 1..D the move sequences of that length from the start, copy-make, and plays
 * every leaf move (no bulk counting; a compiler barrier keeps the leaf boards alive).
 *
 * Usage: kalah_perft DEPTH      (prints `depth N  nodes X  time S` per depth, like arena perft)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 6
#define SEEDS 4
#define S_STORE N           /* South's pits 0..5, store 6 */
#define N_STORE (2 * N + 1) /* North's pits 7..12, store 13 */
#define CELLS (2 * N + 2)

typedef struct {
    uint8_t pit[CELLS];
    uint8_t mover; /* 0 South, 1 North */
    uint8_t over;
} Board;

static int row_empty(const Board *b, int side) {
    int off = side * (N + 1);
    for (int i = 0; i < N; i++)
        if (b->pit[off + i]) return 0;
    return 1;
}

static void sweep(Board *b) {
    for (int side = 0; side < 2; side++) {
        int off = side * (N + 1);
        for (int i = 0; i < N; i++) {
            b->pit[off + N] += b->pit[off + i];
            b->pit[off + i] = 0;
        }
    }
}

/* Plays pit i (0-based, non-empty) of the side to move. */
static void play(Board *b, int i) {
    int side = b->mover;
    int off = side * (N + 1);
    int own_store = off + N;
    int opp_store = side ? S_STORE : N_STORE;
    int pos = off + i;
    int seeds = b->pit[pos];
    b->pit[pos] = 0;
    while (seeds > 0) {
        pos++;
        if (pos == CELLS) pos = 0;
        if (pos == opp_store) continue;
        b->pit[pos]++;
        seeds--;
    }
    int next = 1 - side;
    if (pos == own_store) {
        next = side;
    } else if (pos >= off && pos < off + N && b->pit[pos] == 1) {
        int opp = 2 * N - pos; /* opposite pit: 0<->12, 5<->7 */
        if (b->pit[opp]) {
            b->pit[own_store] += b->pit[opp] + 1;
            b->pit[opp] = 0;
            b->pit[pos] = 0;
        }
    }
    if (row_empty(b, 0) || row_empty(b, 1)) {
        sweep(b);
        b->over = 1;
        return;
    }
    b->mover = (uint8_t)next;
}

static uint64_t perft(const Board *b, int depth) {
    if (depth == 0) return 1;
    if (b->over) return 0;
    int off = b->mover * (N + 1);
    uint64_t nodes = 0;
    for (int i = 0; i < N; i++) {
        if (!b->pit[off + i]) continue;
        Board child = *b;
        play(&child, i);
        if (depth == 1) {
            __asm__ volatile("" : : "r"(&child) : "memory");
            nodes++;
        } else {
            nodes += perft(&child, depth - 1);
        }
    }
    return nodes;
}

int main(int argc, char **argv) {
    int depth = argc > 1 ? atoi(argv[1]) : 10;
    Board start = {{0}, 0, 0};
    for (int i = 0; i < N; i++) start.pit[i] = start.pit[N + 1 + i] = SEEDS;
    printf("perft kalah (plain C)\n");
    for (int d = 1; d <= depth; d++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        uint64_t nodes = perft(&start, d);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        printf("depth %2d  nodes %16llu  time %9.3fs\n", d, (unsigned long long)nodes, secs);
        fflush(stdout);
    }
    return 0;
}
