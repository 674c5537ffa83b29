# The last line of scripts/test.sh: over every test binary's `test result:` line, the tests
# passed, failed and ignored, and how many of the passed skipped their check (tests/util's
# `skipped` prints one `SKIPPED name: why` line each).
/^test result:/ {
    for (i = 1; i <= NF; i++) {
        if ($i ~ /^passed;?$/) p += $(i-1)
        if ($i ~ /^failed;?$/) f += $(i-1)
        if ($i ~ /^ignored;?$/) g += $(i-1)
    }
}
/^SKIPPED / { s++ }
END {
    printf "tests: %d passed, %d failed, %d ignored", p, f, g
    if (s == 1) printf "; 1 of the passed skipped its check (see the SKIPPED line)"
    if (s > 1) printf "; %d of the passed skipped their check (see the SKIPPED lines)", s
    printf "\n"
}
