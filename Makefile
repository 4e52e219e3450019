# CUDA reduction workbook.
#
#   make run      install missing Debian packages, build, open the tutor
#   make test     install missing Debian packages, build, run every test
#   make          build only; a missing package stops it with the command to run
#   make deps     install missing Debian packages (as root, or through sudo)
#   make install  PREFIX=/usr/local DESTDIR=  (the tutor, the harness, lab.h)
#
# V=1 shows the commands.  CFLAGS/LDFLAGS/NVCCFLAGS given on the command line
# are appended after ours.  CUDA_ARCH=sm_XX overrides the detected GPU.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/cudatutor
SHAREDIR ?= $(PREFIX)/share/cudatutor
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

BIN := cudatutor
BUILD := build

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- CUDA --------------------------------------------------------------------
# nvcc from PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin.
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),\
             $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)),\
             $(wildcard /usr/local/cuda/bin/nvcc))
# The GPU's compute capability when there is one (9.0 -> sm_90), else Hopper.
CUDA_ARCH ?= $(or $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                   | head -n1 | tr -d ' .' | grep -E '^[0-9]+$$' | sed 's/^/sm_/'),sm_90)

# ---- C -----------------------------------------------------------------------
# pkg-config is asked when a rule needs the flags, not when this file is
# read: on a new machine `deps` installs the packages first (the targets
# that build go through a second make, which reads this file afresh).
PKGS := ncursesw libcjson libarchive zlib
# Each is asked once per make, at its first use (a recipe's expansion
# blocks make from starting the next job: asked per object, pkg-config
# kept -j2 near one job at a time through the C files).
PKG_CFLAGS_ONCE = $(eval PKG_CFLAGS_ONCE := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS_ONCE)
PKG_LIBS_ONCE = $(eval PKG_LIBS_ONCE := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS_ONCE)
SECCOMP_LIBS_ONCE = $(eval SECCOMP_LIBS_ONCE := $(shell pkg-config --libs libseccomp 2>/dev/null))$(SECCOMP_LIBS_ONCE)
PKG_CFLAGS = $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS_ONCE))
PKG_LIBS = $(PKG_LIBS_ONCE)
SECCOMP_LIBS = $(SECCOMP_LIBS_ONCE)
CXX_RUNNER ?= g++

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
override CFLAGS := -std=c11 -O2 -g $(WARN) -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700 \
    -Itutor -MMD -MP \
    -DCUDATUTOR_ARCH='"$(CUDA_ARCH)"' -DCUDATUTOR_NVCC='"$(NVCC)"' \
    -DCUDATUTOR_LIBDIR='"$(LIBDIR)"' -DCUDATUTOR_SHAREDIR='"$(SHAREDIR)"' $(CFLAGS)
override LDFLAGS := $(LDFLAGS)
# -D_GLIBCXX_BITS_SPECFUN_H: C++17's special functions (std::beta, ...) left
# out of <cmath>, a third of every nvcc run (tutor/check/check_build.c).
override NVCCFLAGS := -arch=$(CUDA_ARCH) -std=c++17 -D_GLIBCXX_BITS_SPECFUN_H -O3 -lineinfo -Xcompiler -Wall,-Wextra \
    -MMD -MP $(NVCCFLAGS)

# The layers of tutor/, bottom up (docs/architecture.md): an include only
# points down.  Everything but the UI and main links into the unit tests.
LAYERS := sys model check view cli grade
CORE_SRC := $(filter-out tutor/cli/main.c,$(foreach l,$(LAYERS),$(wildcard tutor/$(l)/*.c)))
UI_SRC := $(wildcard tutor/ui/*.c)
MAIN_SRC := tutor/cli/main.c
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
UI_OBJ := $(UI_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)

HX_CORE := hx_core hx_time hx_report hx_lock hx_plan hx_sandbox hx_cub
# The families are the rows of tutor/family.h: a judge each.
HX_FAMILIES := $(shell sed -nE 's/^ *X.FAMILY_[A-Z_0-9]+, *([a-z_0-9]+),.*/\1/p' tutor/family.h)
HX_CORE_OBJ := $(HX_CORE:%=$(BUILD)/harness/%.o)
HX_OBJ := $(HX_CORE_OBJ) $(HX_FAMILIES:%=$(BUILD)/harness/hx_fam_%.o)
# One judge per family, built once and never linked with student code.
JUDGES := $(HX_FAMILIES:%=$(BUILD)/harness/judge_%)
# The recording runtime and the runner's main: every check links the
# student's object with these two into its runner.
RUNNER_OBJ := $(BUILD)/harness/rt.o $(BUILD)/harness/runner.o
# What both stand-ins for libcudart share (tutor/runner/stubrt.c): a part
# of rt.o, and linked into the CPU judges.
STUBRT_OBJ := $(BUILD)/harness/stubrt.o
# The CPU tier (docs/harness.md): one CPU judge per family, the same
# judge objects linked against the emulating runtime instead of libcudart,
# CUB's references computed on the host, the family's PTX embedded for its
# own kernels, and the PTX emulator.
HX_CPU_OBJ := $(filter-out %/hx_cub.o,$(HX_CORE_OBJ)) $(BUILD)/harness/hx_cub_emu.o $(BUILD)/harness/hx_emu.o
# Built once the emulator's core is in tutor/emu/; a check without them
# reports no_gpu after checking the plans, as before the CPU tier.
CPU_JUDGES = $(if $(EMU_SRC),$(HX_FAMILIES:%=$(BUILD)/harness/judge_cpu_%))
# CUDA's headers where nvcc itself looks: nvcc on PATH can be a wrapper
# script (/usr/local/bin/nvcc) far from the toolkit's include folder.
CUDA_INC = $(eval CUDA_INC := $(shell $(NVCC) --dryrun -x cu -E /dev/null 2>&1 | \
             sed -n 's/^#\$$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n1))$(CUDA_INC)

# The PTX emulator (DESIGN §11): plain C against libc and libm, archived
# for the judge's emulating runtime (tutor/emu/emu_rt*, built by its own
# rules) and linked into the unit tests.
EMU_SRC := $(filter-out tutor/emu/emu_rt%,$(wildcard tutor/emu/*.c))
EMU_OBJ := $(EMU_SRC:%.c=$(BUILD)/%.o)
EMU_LIB := $(BUILD)/emu/libemu.a

# test_emu_ops's table and generator are parts of it, not tests of their own.
TEST_SRC := $(filter-out tests/unit/test_emu_ops_%.c,$(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# Debian packages the build and the tests need, each with how to tell it is
# there: a pkg-config module (pc:), a program on PATH (bin:) or a file
# (file:; the static C library links the runner).
DEB_PKGS := pkg-config:bin:pkg-config libncurses-dev:pc:ncursesw libcjson-dev:pc:libcjson libarchive-dev:pc:libarchive zlib1g-dev:pc:zlib \
            libseccomp-dev:pc:libseccomp g++:bin:g++ \
            tmux:bin:tmux jq:bin:jq libxml2-utils:bin:xmllint bubblewrap:bin:bwrap \
            zip:bin:zip unzip:bin:unzip binutils:bin:nm

.PHONY: all build run test test-build check-nvcc deps harness install uninstall clean ladder generated
.DELETE_ON_ERROR:

# run and test install what is missing first (deps), then build in a
# second make that asks pkg-config afresh; every build runs on every core
# unless the user chose a number of jobs (nvcc compiles one file on one
# core, and the judges are most of the build).
SUBMAKE_JOBS = $$(case " $$MAKEFLAGS" in *" -j"*) ;; *) echo -j$$(nproc 2>/dev/null || echo 2) ;; esac)

# `make` (all) only builds: a missing package stops it with the command
# that installs it (check-pkgs).  Installing is `make deps`, which the
# README's two commands, run and test, go through first.
all:
	$(Q)$(MAKE) --no-print-directory $(SUBMAKE_JOBS) build

build: $(BIN) harness $(EMU_LIB)

# The tutor opens once the program is built; the judges, the emulator and
# the rest of `build` are made by a make in the background (niced, deaf to
# the tutor's ^C, its log in build/background.log, its pid in
# build/harness/.building while it runs), and a check waits for its lab's
# judges while they are not there yet (check_session.c).
# Labs 01-07 are reduce_int's: its judges come first.
FIRST_JUDGES = $(BUILD)/harness/judge_reduce_int $(filter %/judge_cpu_reduce_int,$(CPU_JUDGES))
run: deps
	$(Q)$(MAKE) --no-print-directory $(SUBMAKE_JOBS) $(BIN)
	$(Q)mkdir -p $(BUILD)/harness
	$(Q)( trap '' INT HUP; exec > $(BUILD)/background.log 2>&1; \
	    nice $(MAKE) --no-print-directory $(SUBMAKE_JOBS) $(FIRST_JUDGES) $(RUNNER_OBJ); \
	    nice $(MAKE) --no-print-directory $(SUBMAKE_JOBS) build; \
	    rm -f $(BUILD)/harness/.building ) < /dev/null & \
	  echo $$! > $(BUILD)/harness/.building; \
	  echo "cudatutor: the judges are being built in the background (build/background.log);" \
	       "a check waits for them"
	$(Q)./$(BIN)

test: deps
	$(Q)$(MAKE) --no-print-directory $(SUBMAKE_JOBS) test-build
	$(Q)CUDA_ARCH=$(CUDA_ARCH) bash tests/run.sh

test-build: build $(TEST_BIN) $(BUILD)/tests/emu_tool $(BUILD)/tests/zoo_run $(BUILD)/tests/jget $(BUILD)/tests/lockprobe $(BUILD)/tests/test_judge_inputs \
            $(BUILD)/tests/test_mpgen $(BUILD)/tests/test_trapezoid \
            $(BUILD)/tests/test_argmax $(BUILD)/tests/test_select \
            $(BUILD)/tests/test_scan $(BUILD)/tests/test_rownorm

# The performance table of every reference solution, measured on this GPU.
ladder: deps
	$(Q)$(MAKE) --no-print-directory $(SUBMAKE_JOBS) build
	$(Q)./$(BIN) ladder --out docs/ladder.md

# The bash completion and the manual page, written from the option tables
# (cudatutor --print-options) and the page's template; tests/docs.sh fails
# while the checked-in files differ from what this writes.
generated: $(BIN)
	$(Q)bash contrib/gen-completion.sh ./$(BIN) > contrib/cudatutor.bash.tmp && \
	  mv contrib/cudatutor.bash.tmp contrib/cudatutor.bash
	$(Q)bash contrib/gen-man.sh ./$(BIN) docs/cudatutor.1.in > docs/cudatutor.1.tmp && \
	  mv docs/cudatutor.1.tmp docs/cudatutor.1

# Installs what is missing with apt-get (as root, or through sudo); otherwise
# stops and prints the exact command.
deps:
	$(Q)missing=""; \
	for spec in $(DEB_PKGS); do \
	  pkg=$${spec%%:*}; kind=$${spec#*:}; what=$${kind#*:}; kind=$${kind%%:*}; \
	  case $$kind in \
	    pc) pkg-config --exists "$$what" 2>/dev/null || missing="$$missing $$pkg" ;; \
	    bin) command -v "$$what" >/dev/null || missing="$$missing $$pkg" ;; \
	    file) [ -e "$$what" ] || missing="$$missing $$pkg" ;; \
	  esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"; \
	  else echo "Missing packages. Run:  sudo apt-get install -y$$missing" >&2; exit 1; fi; \
	  $$sudo apt-get install -y -q$$missing >/dev/null || \
	  { $$sudo apt-get update -q >/dev/null && $$sudo apt-get install -y -q$$missing >/dev/null; } || \
	  { echo "apt-get failed. Run:  sudo apt-get install -y$$missing" >&2; exit 1; }; \
	fi

check-nvcc:
	$(Q)[ -n "$(NVCC)" ] && [ -x "$(NVCC)" ] || { \
	  echo "nvcc not found (searched PATH, \$$CUDA_HOME/bin, /usr/local/cuda/bin)." >&2; \
	  echo "Install the CUDA Toolkit, or run: make NVCC=/path/to/nvcc" >&2; exit 1; }
	$(Q)archs=$$($(NVCC) --list-gpu-arch 2>/dev/null | sed 's/compute_/sm_/'); \
	[ -z "$$archs" ] || echo "$$archs" | grep -qx "$(CUDA_ARCH)" || { \
	  echo "This GPU is $(CUDA_ARCH), and $(NVCC) builds for $$(echo "$$archs" | head -n1)" \
	       "to $$(echo "$$archs" | tail -n1) only: every lab runs its kernels on this GPU," \
	       "so it needs a CUDA Toolkit that supports it (an older one for an older GPU)." >&2; \
	  echo "To build for another GPU anyway: make CUDA_ARCH=sm_90" >&2; exit 1; }

# The tutor links the emulator's PTX reader (emu_ptxscan.c, on emu_lex.c),
# which the rules use, and no other part of it: `make run` opens the tutor
# without compiling the rest, which only the judges and the tests link.  A
# link that misses an emu_ symbol names the file to add here.
EMU_TUTOR_OBJ := $(BUILD)/tutor/emu/emu_ptxscan.o $(BUILD)/tutor/emu/emu_lex.o
$(BIN): $(CORE_OBJ) $(UI_OBJ) $(MAIN_OBJ) $(EMU_TUTOR_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(LDFLAGS) $(PKG_LIBS) -pthread -lm

$(BUILD)/%.o: %.c | check-pkgs
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

# The emulator is the CPU tier's inner loop: -O3, whose unrolled and
# vectorised lane loops run its kernels in a fifth fewer host instructions
# (docs/harness.md section 10, "Speed"); an -O in the user's CFLAGS, after
# ours, still wins.
$(sort $(EMU_OBJ) $(EMU_TUTOR_OBJ)): $(BUILD)/%.o: %.c | check-pkgs
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(PKG_CFLAGS) $(subst -O2 -g,-O3 -g,$(CFLAGS)) -c -o $@ $<

# What is baked into the objects (the GPU arch, the install paths, nvcc) is
# part of their identity: a change rebuilds what depends on it.
$(BUILD)/config.stamp: FORCE
	@mkdir -p $(dir $@)
	$(Q)echo "$(CUDA_ARCH) $(NVCC) $(LIBDIR) $(SHAREDIR)" | cmp -s - $@ || \
	  echo "$(CUDA_ARCH) $(NVCC) $(LIBDIR) $(SHAREDIR)" > $@

$(BUILD)/tutor/sys/toolchain.o: $(BUILD)/config.stamp

harness: $(JUDGES) $(CPU_JUDGES) $(RUNNER_OBJ)

$(BUILD)/harness/%.o: tutor/harness/%.cu $(BUILD)/config.stamp | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -c -o $@ $<

$(BUILD)/harness/judge_%: $(HX_CORE_OBJ) $(BUILD)/harness/hx_fam_%.o $(EMU_LIB) | check-seccomp
	@echo "  LD      $@"
	$(Q)$(NVCC) -arch=$(CUDA_ARCH) -o $@ $^ $(SECCOMP_LIBS)

# A family's object keeps the PTX its compile wrote (-keep) for the CPU
# judge: the PTX of the very kernels its stubs register, without a second
# run of nvcc's front end over the same file (8 files, 1 to 2 CPU seconds
# each).  The PTX is touched after the object, so it reads as up to date;
# one gone, older than its object or kept under another name (an nvcc
# that names it otherwise) is compiled on its own.
$(BUILD)/harness/hx_fam_%.o: tutor/harness/hx_fam_%.cu $(BUILD)/config.stamp | check-nvcc
	@mkdir -p $(dir $@) $(BUILD)/harness/ptx
	@echo "  NVCC    $<"
	$(Q)rm -rf $(BUILD)/harness/keep-$* && mkdir -p $(BUILD)/harness/keep-$*
	$(Q)$(NVCC) $(NVCCFLAGS) -c -keep -keep-dir $(BUILD)/harness/keep-$* -o $@ $<
	$(Q){ mv $(BUILD)/harness/keep-$*/hx_fam_$*.ptx $(BUILD)/harness/ptx/hx_fam_$*.ptx 2>/dev/null && \
	  touch $(BUILD)/harness/ptx/hx_fam_$*.ptx; }; rm -rf $(BUILD)/harness/keep-$*

# The CPU judges.  The PTX of a family's kernels is compiled with the
# flags of its object, so that every kernel its stubs register is in it.
$(BUILD)/harness/ptx/%.ptx: $(BUILD)/harness/%.o | check-nvcc
	$(Q)[ $@ -nt $< ] || { echo "  PTX     tutor/harness/$*.cu" && \
	  $(NVCC) $(NVCCFLAGS) -ptx -o $@ tutor/harness/$*.cu; }

$(BUILD)/harness/ptx/%.o: $(BUILD)/harness/ptx/%.ptx tutor/emu/emu_rt_ptx.c tutor/emu/emu_rt.h
	@echo "  EMBED   $<"
	$(Q)$(CC) -std=c11 -O2 $(WARN) -Itutor -DEMU_PTX_PATH='"$<"' -c -o $@ tutor/emu/emu_rt_ptx.c

# The emulating runtime is C against CUDA's headers, like the runner's.
EMU_RT_OBJ := $(BUILD)/emu/emu_rt.o $(BUILD)/emu/emu_rt_stub.o $(BUILD)/emu/emu_rt_drv.o
$(EMU_RT_OBJ): $(BUILD)/emu/%.o: tutor/emu/%.c tutor/emu/emu_rt_int.h tutor/emu/emu_rt.h tutor/emu/emu.h \
		tutor/runner/stubrt.h tutor/runner/standin.h | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -std=c11 -O2 -g $(WARN) -D_DEFAULT_SOURCE -I$(CUDA_INC) -Itutor -c -o $@ $<

$(BUILD)/harness/judge_cpu_%: $(HX_CPU_OBJ) $(BUILD)/harness/hx_fam_%.o $(BUILD)/harness/ptx/hx_fam_%.o \
		$(EMU_RT_OBJ) $(STUBRT_OBJ) $(EMU_LIB) | check-seccomp
	@echo "  LD      $@"
	$(Q)$(CXX_RUNNER) -o $@ $^ $(SECCOMP_LIBS) -pthread -lm

# The runner's half is plain C against CUDA's headers, and never links
# libcudart: it is the stand-in for it.
RUNNER_CC = $(CC) -std=c11 -O2 -g $(WARN) -I$(CUDA_INC) -Itutor/runner
RUNNER_HDR := tutor/runner/plan.h tutor/runner/rt.h tutor/runner/stubrt.h tutor/family.h tutor/lab.h
$(BUILD)/harness/%.o: tutor/runner/%.c $(RUNNER_HDR) | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(RUNNER_CC) -c -o $@ $<

# rt.o is rt.c and stubrt.c as one object (ld -r), the one a check links.
$(BUILD)/harness/rt.o: tutor/runner/rt.c $(STUBRT_OBJ) $(RUNNER_HDR) | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(RUNNER_CC) -c -o $(@:.o=.part.o) $<
	$(Q)$(LD) -r -o $@ $(@:.o=.part.o) $(STUBRT_OBJ)

# The GPU lock's protocol, tested without a GPU (tests/lock.sh).
$(BUILD)/tests/lockprobe: tests/lock/lockprobe.cu $(BUILD)/harness/hx_lock.o $(BUILD)/harness/hx_time.o | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -o $@ $(filter %.cu %.o,$^)

# The judge's verification rules, tested on the CPU (host code only).
$(BUILD)/tests/test_judge_inputs: tests/unit/test_judge_inputs.cu $(BUILD)/harness/hx_time.o \
		$(BUILD)/harness/hx_cub.o | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $(filter %.cu %.o,$^)

# Lab 10's input design, host code only: tested without a GPU.
$(BUILD)/tests/test_mpgen: tests/unit/test_mpgen.cu | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $<

# Labs 11 and 12's inputs and checks, host code only: tested without a GPU.
$(BUILD)/tests/test_argmax $(BUILD)/tests/test_select: $(BUILD)/tests/%: tests/unit/%.cu | check-nvcc
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $<

# The trapezoid family's host arithmetic (its draws, the exact integral, the
# error bounds), tested without a GPU: the test includes the family's source.
$(BUILD)/tests/test_trapezoid: tests/harness/test_trapezoid.cu tutor/harness/hx_fam_trapezoid.cu \
		tutor/harness/hx.h tutor/lab.h tests/unit/tap.h $(filter-out %/hx_core.o,$(HX_CORE_OBJ)) $(EMU_LIB) \
		| check-nvcc check-seccomp
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $< $(filter %.o %.a,$^) $(SECCOMP_LIBS)

# Labs 13 and 14's judges, their host arithmetic: the same way.
$(BUILD)/tests/test_scan: tests/harness/test_scan.cu tutor/harness/hx_fam_scan.cu tutor/harness/hx_reduce.cuh \
		tutor/harness/hx.h tutor/lab.h tests/unit/tap.h $(filter-out %/hx_core.o,$(HX_CORE_OBJ)) $(EMU_LIB) \
		| check-nvcc check-seccomp
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $< $(filter %.o %.a,$^) $(SECCOMP_LIBS)

$(BUILD)/tests/test_rownorm: tests/harness/test_rownorm.cu tutor/harness/hx_fam_rownorm.cu \
		tutor/harness/hx.h tutor/lab.h tests/unit/tap.h $(filter-out %/hx_core.o,$(HX_CORE_OBJ)) $(EMU_LIB) \
		| check-nvcc check-seccomp
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itests/unit -o $@ $< $(filter %.o %.a,$^) $(SECCOMP_LIBS)

# The CPU judge's system-call filter (tutor/emu/emu_seal.c) is libseccomp's.
$(BUILD)/tests/test_emu_seal: PKG_LIBS += $(SECCOMP_LIBS)
$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJ) $(EMU_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(PKG_CFLAGS) $(CFLAGS) -Itests/unit -o $@ $< $(CORE_OBJ) $(EMU_LIB) $(LDFLAGS) $(PKG_LIBS) -pthread -lm

$(EMU_LIB): $(EMU_OBJ)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The emulator's mutation fuzzer (tests/emu/emu_fuzz.c), on demand: its own
# copy of the emulator under AddressSanitizer and UBSan.
$(BUILD)/tests/emu_fuzz: tests/emu/emu_fuzz.c $(EMU_SRC)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(filter-out -O2 -MMD -MP,$(CFLAGS)) -O1 -fsanitize=address,undefined \
	  -fno-sanitize-recover=undefined -o $@ $< $(EMU_SRC) $(LDFLAGS) $(SECCOMP_LIBS) -pthread -lm

# The tests' reader of JSON files (tests/tools/jget.c): a value by its path,
# numbers in the reports' form.
$(BUILD)/tests/jget: tests/tools/jget.c $(BUILD)/tutor/sys/jsonw.o $(BUILD)/tutor/sys/csv.o $(BUILD)/tutor/sys/util.o
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(PKG_LIBS) -lm

# The emulator's driver for tests/emu.sh: parses PTX, runs lab 01's launcher
# or any one launch.
$(BUILD)/tests/emu_tool: tests/emu/emu_tool.c $(EMU_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(EMU_LIB) $(LDFLAGS) -pthread -lm

# The emulator on the zoo of CUDA C beyond the corpus (tests/emu_zoo.sh);
# tests/device/emu-zoo.sh builds the same file against the CUDA driver.
$(BUILD)/tests/zoo_run: tests/emu/zoo/zoo_run.c $(EMU_LIB) $(BUILD)/tutor/sys/util.o
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/tutor/sys/util.o $(EMU_LIB) $(LDFLAGS) -pthread -lm

# The PTX emulator held to the ISA, form by form (tests/unit/test_emu_ops*.c).
EMU_OPS_SRC := tests/unit/test_emu_ops.c tests/unit/test_emu_ops_gen.c tests/unit/test_emu_ops_table.c \
    tests/unit/test_emu_ops_extra.c tests/unit/test_emu_ops_half.c
$(BUILD)/tests/test_emu_ops: $(EMU_OPS_SRC) tests/unit/test_emu_ops.h tests/unit/test_emu_ops_ref.h $(EMU_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $(EMU_OPS_SRC) $(EMU_LIB) $(LDFLAGS) -pthread -lm

# The emulator's speed on the solutions of labs 01, 07, 13 and 15, hazards off
# and on, each result checked (tests/emu/bench.c; the figures: docs/harness.md
# section 10, "Speed"): bash tests/emu/forms.sh && make build/emu/bench &&
# build/emu/bench [PTXDIR] [N] [LAB[:on|:off]...]
$(BUILD)/emu/bench: tests/emu/bench.c $(EMU_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(EMU_LIB) $(LDFLAGS) -pthread -lm

check-pkgs:
	$(Q)pkg-config --exists $(PKGS) || { \
	  echo "pkg-config cannot find $(PKGS): run 'make deps' (or apt-get install libncurses-dev libcjson-dev libarchive-dev zlib1g-dev)" >&2; \
	  exit 1; }

check-seccomp:
	$(Q)pkg-config --exists libseccomp || { \
	  echo "pkg-config cannot find libseccomp: run 'make deps' (or apt-get install libseccomp-dev)" >&2; \
	  exit 1; }

install: all
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/harness $(DESTDIR)$(SHAREDIR)/tutor
	$(Q)install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/$(BIN)
	$(Q)install -m 755 $(JUDGES) $(CPU_JUDGES) $(DESTDIR)$(LIBDIR)/harness/
	$(Q)install -m 644 $(RUNNER_OBJ) $(DESTDIR)$(LIBDIR)/harness/
	$(Q)install -m 644 tutor/lab.h tutor/status.h $(DESTDIR)$(SHAREDIR)/tutor/
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)install -m 644 docs/cudatutor.1 $(DESTDIR)$(MANDIR)/man1/cudatutor.1
	$(Q)install -m 644 contrib/cudatutor.bash $(DESTDIR)$(BASHCOMPDIR)/cudatutor
	@echo "installed $(BIN) in $(DESTDIR)$(BINDIR)"

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/$(BIN)
	$(Q)rm -rf $(DESTDIR)$(LIBDIR) $(DESTDIR)$(SHAREDIR)
	$(Q)rm -f $(DESTDIR)$(MANDIR)/man1/cudatutor.1 $(DESTDIR)$(BASHCOMPDIR)/cudatutor

clean:
	$(Q)rm -rf $(BUILD) $(BIN)

.PHONY: FORCE check-pkgs check-seccomp
# Objects the judges are linked from are kept, not deleted as intermediates.
.SECONDARY: $(HX_OBJ) $(RUNNER_OBJ) $(STUBRT_OBJ) $(HX_CPU_OBJ) $(EMU_RT_OBJ) \
            $(HX_FAMILIES:%=$(BUILD)/harness/ptx/hx_fam_%.ptx) $(HX_FAMILIES:%=$(BUILD)/harness/ptx/hx_fam_%.o)
FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
