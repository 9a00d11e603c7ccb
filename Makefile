# Thin wrapper over CMake.
#   make check   build and test against both Open MPI and MPICH
#   make demo    build with Open MPI and run the demo (scripts/demo.sh)
#   make build   build with Open MPI only
#   make build-smpi  build for SimGrid SMPI (smpicc) in build/smpi
#   make scale   the simulated scale lab (scripts/scale.sh, docs/scale.md)
#   make sanitize  ASan+UBSan build of the library and its risky tests (part of check)
# Build trees: build/openmpi, build/mpich.  Variables: MPIS, BUILD_TYPE, JOBS.
MPIS       ?= openmpi mpich
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= 2
BUILD      := build

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
build-smpi:
	@test -f $(BUILD)/smpi/CMakeCache.txt || \
	  cmake -S . -B $(BUILD)/smpi -DCMAKE_C_COMPILER=smpicc -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCARTCOLL_WERROR=ON
	cmake --build $(BUILD)/smpi -j $(JOBS)

scale: build-smpi
	scripts/scale.sh --full

scale-quick: build-smpi
	scripts/scale.sh --quick

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
