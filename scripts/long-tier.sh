#!/usr/bin/env bash
# Sourced (not run) by the long-tier scripts: the start they share. Builds the
# tools quietly, makes a scratch directory $OUT that is removed on exit,
# lists the full-size networks of the zoo in $NETWORKS and sets the
# script's verdict $status to 0, so that each long-tier script holds only
# what it checks. Expects to be sourced from the repository root.
bash scripts/build.sh > /dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# shellcheck disable=SC2034 # NETWORKS and status are the sourcing script's.
NETWORKS=(alexnet googlenet resnet50 vgg16 mobilenet_v1 squeezenet1_1 resnext50_32x4d mobilenet_v2
  efficientnet_b0 shufflenet_v2_x1_0)
# shellcheck disable=SC2034
status=0
