# Thin wrapper over CMake.
#   make check   build and test against both Open MPI and MPICH
#   make demo    build with Open MPI and run the demo (scripts/demo.sh)
#   make build   build with Open MPI only
#   make build-smpi  build for SimGrid SMPI (smpicc) in build/smpi
#   make scale   the simulated scale lab (scripts/scale.sh, docs/scale.md)
#   make sanitize  ASan+UBSan build of the library and its risky tests (part of check)
# Build trees: build/openmpi, build/mpich.  Variables: MPIS, BUILD_TYPE, JOBS,
# SIMGRID_PREFIX (build-smpi, scale: a SimGrid built from source by
# scripts/smpi/build-simgrid.sh; empty: Debian's smpicc/smpirun on PATH).
MPIS       ?= openmpi mpich
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= 2
BUILD      := build
SIMGRID_PREFIX ?=
# One SMPI build tree per SimGrid: build/smpi (Debian's), build/smpi-NAME
# for SIMGRID_PREFIX=.../NAME (scripts/scale.sh --simgrid picks the same).
SMPI_BUILD := $(BUILD)/smpi$(if $(SIMGRID_PREFIX),-$(notdir $(patsubst %/,%,$(SIMGRID_PREFIX))))
SMPICC     := $(if $(SIMGRID_PREFIX),$(abspath $(SIMGRID_PREFIX))/bin/smpicc,smpicc)
# Its headers as system headers, as Debian's /usr/include are (SimGrid 4.1's
# smpi_helpers_internal.h declares `pid_t smpi_getpid();`, no prototype).
SMPI_FLAGS := $(if $(SIMGRID_PREFIX),"-DCMAKE_C_FLAGS=-isystem $(abspath $(SIMGRID_PREFIX))/include -isystem $(abspath $(SIMGRID_PREFIX))/include/smpi")
SCALE_SG   := $(if $(SIMGRID_PREFIX),--simgrid $(abspath $(SIMGRID_PREFIX)))

.PHONY: all build build-smpi scale scale-quick check sanitize demo deps fuzz install clean $(addprefix build-,$(MPIS)) $(addprefix check-,$(MPIS))

all: build

deps:
	@scripts/install-deps.sh

# Configure (once) and build with one MPI: mpicc.<flavour> selects it.
# (Static pattern rules: GNU make does not search implicit rules for .PHONY
# targets.)
$(addprefix build-,$(MPIS)): build-%: deps
	@test -f $(BUILD)/$*/CMakeCache.txt || \
	  cmake -S . -B $(BUILD)/$* -DCMAKE_C_COMPILER=mpicc.$* -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCARTCOLL_WERROR=ON
	cmake --build $(BUILD)/$* -j $(JOBS)

build: build-openmpi

# SimGrid SMPI (not part of make check): the library, cartbench and the
# examples, run under smpirun on simulated platforms (scripts/platforms/).
# SIMGRID_PREFIX=DIR: DIR/bin/smpicc instead (docs/scale.md, "A newer SimGrid").
build-smpi:
	@test -f $(SMPI_BUILD)/CMakeCache.txt || \
	  cmake -S . -B $(SMPI_BUILD) -DCMAKE_C_COMPILER=$(SMPICC) $(SMPI_FLAGS) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCARTCOLL_WERROR=ON
	cmake --build $(SMPI_BUILD) -j $(JOBS)

scale: build-smpi
	scripts/scale.sh $(SCALE_SG) --full

scale-quick: build-smpi
	scripts/scale.sh $(SCALE_SG) --quick

$(addprefix check-,$(MPIS)): check-%: build-%
	cd $(BUILD)/$* && ctest --output-on-failure

check: $(addprefix check-,$(MPIS))
	@scripts/sanitize.sh openmpi
	@scripts/fuzz.sh 20
	@echo "make check: all tests passed with: $(MPIS)"

sanitize: deps
	scripts/sanitize.sh openmpi

demo: build-openmpi
	@scripts/demo.sh $(BUILD)/openmpi

fuzz:
	@scripts/fuzz.sh 120

install: build-openmpi
	cmake --install $(BUILD)/openmpi $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD)
