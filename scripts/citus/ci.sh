#!/usr/bin/env bash
# The Citus part of CI, run by hand (README "Running on Citus"; issue 28 item 7): builds and installs Citus when it
# is missing, starts the local cluster, then runs the integration suite and the single-shard hot-path test on it,
# printing each step's time. Not in .ci/run: on the 2-core CI machine the build (~3 min) and the integration suite on
# the cluster (~5 min: every test file creates and migrates its own database on three nodes) would take .ci/run past
# its 25-minute budget (docs/SCALING.md "Running on Citus"). Runs as root, like the installers.
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

step "install (skipped when the extension is already available)"
time bash scripts/citus/install.sh
step "cluster start"
time bash scripts/citus/cluster.sh start
step "integration suite on the cluster"
time TEST_DB=citus node --experimental-vm-modules node_modules/jest/bin/jest.js --selectProjects integration --maxWorkers=2
step "every hot-path statement on one shard"
time TEST_DB=citus node --experimental-vm-modules node_modules/jest/bin/jest.js --selectProjects e2e --maxWorkers=1 --testPathPatterns single-shard-hot-paths
step "done"
