#!/usr/bin/env bash
# The shape of the Elo settings' mistakes beside those of people of their rating (docs/bots.md,
# "Mistakes like a human's"): the seeds lost per sow of each `option.Elo` setting and of the
# people rated where it is set, from `arena analyse --profile` (analysis-losses.csv, the table it
# prints and mistake-profile.svg/png).
#
#   scripts/mistake-profile.sh                    # against a synthetic site (below)
#   SITE=site.pgn scripts/mistake-profile.sh      # against the site's own people: its games with
#                                                 # their moves and WhiteElo/BlackElo tags
#
# Without SITE it first makes a synthetic site: synthetic people (bots/examples/synthetic_human.rs,
# a stated model of a person's mistakes, not the site's players) of eleven strengths play each
# other and the levels from the start position; their ratings on the site's scale come from
# `arena rate` with the levels held at their Elos (LEVELS), and are written into the games as
# Elo tags. Then the settings play the people and the levels, and both sets of games are judged.
#
# Environment (all optional):
#   SITE     the site's PGN (skips the synthetic site)
#   ELOS     the settings compared ["850 1150 1450": each in the middle of a 100-Elo bracket]
#   BRACKET  the width of the people's rating brackets [100]
#   LEVELS   the levels' Elos on the site's scale ["easy=897.78 normal=1261.08 hard=1685.44",
#            the rating of tests/fixtures/ratings-anchors/site.pgn]
#   PAIRS    game pairs per encounter [2]
#   SEED     run seed [46]
#   OUT      the results [results/mistake-profile]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results/mistake-profile}
ELOS=${ELOS:-850 1150 1450}
BRACKET=${BRACKET:-100}
LEVELS=${LEVELS:-easy=897.78 normal=1261.08 hard=1685.44}
PAIRS=${PAIRS:-2}
SEED=${SEED:-46}
cargo build --release --quiet --bin arena -p mancala-arena
cargo build --release --quiet -p mancala-bots --bins --example synthetic_human
arena=target/release/arena
# Hard builds its database at `newgame`: on a crowded machine that can take longer than the
# default 10 s handshake.
play=(--quiet --opening-plies 0 --seed "$SEED" --handshake-timeout 300000 --concurrency 2)
rm -rf "$OUT"
mkdir -p "$OUT"

levels=()
: > "$OUT/levels.csv"
for l in $LEVELS; do
  levels+=(--bot "name=${l%%=*}" bundled=alphabeta "option.Level=${l%%=*}")
  printf '"%s",%s\n' "${l%%=*}" "${l#*=}" >> "$OUT/levels.csv"
done
settings=()
names=()
echo "name,elo" > "$OUT/settings.csv"
for e in $ELOS; do
  settings+=(--bot "name=elo-$e" bundled=alphabeta "option.Elo=$e")
  names+=("elo-$e")
  echo "elo-$e,$e" >> "$OUT/settings.csv"
done
opponents=("${levels[@]}")

if [ -z "${SITE:-}" ]; then
  echo "== a synthetic site: people against each other and the levels"
  people=()
  for s in 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1; do
    people+=(--bot "name=person-$s" cmd=target/release/examples/synthetic_human "option.Strength=$s")
  done
  "$arena" run "${play[@]}" --pairs "$PAIRS" "${people[@]}" "${levels[@]}" --out "$OUT/site-games"
  echo "== the people's ratings on the site's scale (the levels held at $LEVELS)"
  "$arena" rate "$OUT/site-games" --anchors "$OUT/levels.csv" --bootstrap 0 | sed -n '1,20p'
  # The games with the people's ratings as Elo tags: the site's PGN.
  python3 - "$OUT/site-games" "$OUT/site.pgn" "$LEVELS" <<'PY'
import csv, re, sys
run, out, levels = sys.argv[1], sys.argv[2], {l.split("=")[0] for l in sys.argv[3].split()}
elo = {r["name"]: float(r["elo"]) for r in csv.DictReader(open(f"{run}/ratings.csv"))}
tagged = []
for line in open(f"{run}/games.pgn"):
    tagged.append(line)
    m = re.match(r'\[(White|Black) "(.*)"\]', line)
    if m and m.group(2) not in levels and m.group(2) in elo:
        tagged.append(f'[{m.group(1)}Elo "{elo[m.group(2)]:.0f}"]\n')
open(out, "w").writelines(tagged)
PY
  SITE=$OUT/site.pgn
  opponents+=("${people[@]}")
fi

echo "== the settings ($ELOS) against the levels${people:+ and the people}"
gauntlet=()
for n in "${names[@]}"; do gauntlet+=(--gauntlet "$n"); done
"$arena" run "${play[@]}" --pairs "$PAIRS" "${settings[@]}" "${opponents[@]}" "${gauntlet[@]}" \
  --out "$OUT/settings-games"

echo "== every sow judged: the people by bracket, each setting at its Elo"
profile=$(IFS=,; echo "${names[*]}")
"$arena" analyse "$SITE" "$OUT/settings-games/games.pgn" --ratings "$OUT/settings.csv" \
  --profile "$profile" --bracket "$BRACKET" --no-report --out "$OUT/analysis"
echo "results: $OUT/analysis (analysis-losses.csv, mistake-profile.svg/png)"
