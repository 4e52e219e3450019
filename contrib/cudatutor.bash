# contrib/cudatutor.bash — bash completion for cudatutor: its commands, each
# command's options (as `cudatutor COMMAND --help` lists them; tests/docs.sh
# keeps the two equal), lab ids for the commands that take a lab, and files
# or folders for the options that take them.
# Installed as /usr/share/bash-completion/completions/cudatutor, or sourced
# from ~/.bashrc: . /path/to/workbook/contrib/cudatutor.bash

_cudatutor_commands="list show check watch hint progress reset solution ladder calibrate view-result grade help"
_cudatutor_global="--help --version --root --progress --no-color --unlock-all"

# _cudatutor_command_options COMMAND: the options COMMAND takes besides the
# global ones ("" for the tutor itself).
_cudatutor_command_options() {
    case $1 in
        list|show|hint|progress|solution) echo "--json" ;;
        check) echo "--json --file --out --seed --quick --no-sanitize --counters --build-only --run-only" \
                    "--timeout-scale --work-dir --wrap --wrap-arg --time-budget --gpu-lock --target-min --no-calibrate" \
                    "--gpu-via --gpu-via-wait" ;;
        watch) echo "--quick --no-sanitize --timeout-scale --no-calibrate --gpu-via --gpu-via-wait" ;;
        calibrate) echo "--json --force --gpu-via --gpu-via-wait" ;;
        reset) echo "--json --yes" ;;
        ladder) echo "--out" ;;
        view-result|"") echo "--no-calibrate --keys --dump --size" ;;
        grade) echo "--out --jobs --labs --bank --roster --seed --shard --force --full-timing --no-sanitize" \
                    "--timeout-scale --sandbox --hide --gpus --check-runs --time-budget --no-calibrate --rubric" \
                    "--workbook --keep-work --max-file-kb --max-unpacked-mb --max-members --max-procs --quiet" \
                    "--merge --rescore --selftest --sandbox-exec --build" ;;
    esac
}

# The lab ids of the workbook the command line points at (--root), from the
# tutor itself, so that a catalog with more labs completes them too.
_cudatutor_labs() {
    local root=() i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        case ${COMP_WORDS[i]} in
            --root) root=(--root "${COMP_WORDS[i + 1]}") ;;
            --root=*) root=("${COMP_WORDS[i]}") ;;
        esac
    done
    "${COMP_WORDS[0]}" "${root[@]}" list 2>/dev/null | awk '/^[0-9][0-9] /{print $1}'
}

_cudatutor() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cmd="" nargs=0 i w
    COMPREPLY=()

    # The option before the cursor wants a value.
    case $prev in
        --root|--work-dir|--workbook|--build) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
        --progress|--file|--out|-o|--wrap|--gpu-lock|--roster|--rubric|--hide|--sandbox-exec)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
        --sandbox) mapfile -t COMPREPLY < <(compgen -W "auto bwrap bwrap-root none" -- "$cur"); return ;;
        --seed|--timeout-scale|--time-budget|--target-min|--keys|--size|--wrap-arg|--jobs|-j|--labs|--bank|\
        --shard|--gpus|--check-runs|--max-file-kb|--max-unpacked-mb|--max-members|--max-procs|--gpu-via|\
        --gpu-via-wait) return ;;
    esac

    # The command and how many of its arguments come before the cursor;
    # options and their values may stand anywhere.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
            --root|--progress|--file|--out|--seed|--timeout-scale|--work-dir|--wrap|--wrap-arg|--time-budget|--gpu-lock|\
            --target-min|--keys|--size|-o|-j|--jobs|--labs|--bank|--roster|--shard|--sandbox|--hide|--gpus|\
            --check-runs|--rubric|--workbook|--max-file-kb|--max-unpacked-mb|--max-members|--max-procs|\
            --sandbox-exec|--build|--gpu-via|--gpu-via-wait) ((i++)) ;;
            -*) ;;
            *) if [ -z "$cmd" ]; then cmd=$w; else ((nargs++)); fi ;;
        esac
    done

    if [[ $cur == -* ]]; then
        # grade has a grammar of its own: none of the others' options.
        local global=$_cudatutor_global
        [ "$cmd" != grade ] || global=--help
        mapfile -t COMPREPLY < <(compgen -W "$global $(_cudatutor_command_options "$cmd")" -- "$cur")
    elif [ -z "$cmd" ]; then
        mapfile -t COMPREPLY < <(compgen -W "$_cudatutor_commands" -- "$cur")
    elif [ "$nargs" = 0 ]; then
        case $cmd in
            show|check|watch|hint|reset|solution)
                mapfile -t COMPREPLY < <(compgen -W "$(_cudatutor_labs)" -- "$cur") ;;
            view-result|grade) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
            help) mapfile -t COMPREPLY < <(compgen -W "$_cudatutor_commands" -- "$cur") ;;
        esac
    elif [ "$cmd" = hint ] && [ "$nargs" = 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "1 2 3" -- "$cur")
    elif [ "$cmd" = grade ]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

complete -F _cudatutor cudatutor ./cudatutor
