# Sourced by scripts/scale.sh and scripts/smpi/memory.sh (POSIX sh):
# cc_platform_model FILE exports cartcoll's cost model that the platform
# file's `cartcoll-model:` line gives (CARTCOLL_ALPHA, CARTCOLL_BETA,
# CARTCOLL_OVERHEAD), so the simulated library prices what the simulator
# charges.
cc_platform_model() {
  for kv in $(sed -n 's/.*cartcoll-model: *//p' "$1"); do
    case $kv in
      alpha=*) CARTCOLL_ALPHA=${kv#alpha=} ;;
      beta=*) CARTCOLL_BETA=${kv#beta=} ;;
      overhead=*) CARTCOLL_OVERHEAD=${kv#overhead=} ;;
    esac
  done
  export CARTCOLL_ALPHA CARTCOLL_BETA CARTCOLL_OVERHEAD
}
