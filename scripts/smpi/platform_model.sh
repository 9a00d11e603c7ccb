# Sourced by scripts/scale.sh and scripts/smpi/memory.sh (POSIX sh):
# cc_platform_model FILE exports cartcoll's cost model that the platform
# file's `cartcoll-model:` line gives (CARTCOLL_ALPHA, CARTCOLL_BETA,
# CARTCOLL_OVERHEAD, and CARTCOLL_PHASE_WAIT, CARTCOLL_CPU where it names
# phase-wait, cpu), so the simulated library prices what the simulator
# charges.
cc_platform_model() {
  for kv in $(sed -n 's/.*cartcoll-model: *//p' "$1"); do
    case $kv in
      alpha=*) CARTCOLL_ALPHA=${kv#alpha=} ;;
      beta=*) CARTCOLL_BETA=${kv#beta=} ;;
      overhead=*) CARTCOLL_OVERHEAD=${kv#overhead=} ;;
      phase-wait=*) CARTCOLL_PHASE_WAIT=${kv#phase-wait=}; export CARTCOLL_PHASE_WAIT ;;
      cpu=*) CARTCOLL_CPU=${kv#cpu=}; export CARTCOLL_CPU ;;
    esac
  done
  export CARTCOLL_ALPHA CARTCOLL_BETA CARTCOLL_OVERHEAD
}
