#!/bin/bash

__qbt_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__qbt_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__qbt_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__qbt_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_qbt() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    login|logout|servers|list|add|info|files|prio|trackers|peers|stop|start|delete|move|rename|recheck|category|tag|limits|watch|search|rss|stream|upload|music|keys|app|transfer|log|prefs|help)
        # Offer subcommand argument completions
        "_qbt_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'login logout servers list add info files prio trackers peers stop start delete move rename recheck category tag limits watch search rss stream upload music keys app transfer log prefs help' -- "${cur}"))
        ;;
    esac
}

_qbt_login() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --make-default --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--username -u --api-key --name --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--username'|'-u')
        return
        ;;
    '--api-key')
        return
        ;;
    '--name')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_logout() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 1
}

_qbt_servers() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|use)
        # Offer subcommand argument completions
        "_qbt_servers_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list use' -- "${cur}"))
        ;;
    esac
}

_qbt_servers_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0
}

_qbt_servers_use() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 1
}

_qbt_list() {
    repeating_flags=()
    non_repeating_flags=(--json --reverse -r --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --filter -f --category -c --tag -t --sort -s --limit)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--filter'|'-f')
        return
        ;;
    '--category'|'-c')
        return
        ;;
    '--tag'|'-t')
        return
        ;;
    '--sort'|'-s')
        return
        ;;
    '--limit')
        return
        ;;
    esac
}

_qbt_add() {
    repeating_flags=()
    non_repeating_flags=(--json --stopped --skip-checking --sequential --first-last-piece-prio --auto-tmm --add-to-top --wait --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --save-path --download-path --category -c --tags -t --rename --cookie --content-layout --stop-condition --download-limit --upload-limit --ratio-limit --seeding-time-limit --inactive-seeding-time-limit --timeout)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--save-path')
        return
        ;;
    '--download-path')
        return
        ;;
    '--category'|'-c')
        return
        ;;
    '--tags'|'-t')
        return
        ;;
    '--rename')
        return
        ;;
    '--cookie')
        return
        ;;
    '--content-layout')
        return
        ;;
    '--stop-condition')
        return
        ;;
    '--download-limit')
        return
        ;;
    '--upload-limit')
        return
        ;;
    '--ratio-limit')
        return
        ;;
    '--seeding-time-limit')
        return
        ;;
    '--inactive-seeding-time-limit')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_qbt_info() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_files() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_prio() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 3

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_trackers() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--add --remove)
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--add')
        return
        ;;
    '--remove')
        return
        ;;
    esac
}

_qbt_peers() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--add)
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--add')
        return
        ;;
    esac
}

_qbt_stop() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_start() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_delete() {
    repeating_flags=()
    non_repeating_flags=(--json --files --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_move() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --to)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--to')
        return
        ;;
    esac
}

_qbt_rename() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --file)
    __qbt_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--file')
        return
        ;;
    esac
}

_qbt_recheck() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_category() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|add|edit|remove|set)
        # Offer subcommand argument completions
        "_qbt_category_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list add edit remove set' -- "${cur}"))
        ;;
    esac
}

_qbt_category_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_category_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --save-path)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--save-path')
        return
        ;;
    esac
}

_qbt_category_edit() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --save-path)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--save-path')
        return
        ;;
    esac
}

_qbt_category_remove() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_category_set() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_tag() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|create|delete|add|remove)
        # Offer subcommand argument completions
        "_qbt_tag_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list create delete add remove' -- "${cur}"))
        ;;
    esac
}

_qbt_tag_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_tag_create() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_tag_delete() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_tag_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_tag_remove() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_limits() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --download --upload --ratio --seeding-time --inactive-seeding-time)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--download')
        return
        ;;
    '--upload')
        return
        ;;
    '--ratio')
        return
        ;;
    '--seeding-time')
        return
        ;;
    '--inactive-seeding-time')
        return
        ;;
    esac
}

_qbt_watch() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --interval --count)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--interval')
        return
        ;;
    '--count')
        return
        ;;
    esac
}

_qbt_search() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    run|plugins)
        # Offer subcommand argument completions
        "_qbt_search_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'run plugins' -- "${cur}"))
        ;;
    esac
}

_qbt_search_run() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --plugins --category --limit --add --timeout)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--plugins')
        return
        ;;
    '--category')
        return
        ;;
    '--limit')
        return
        ;;
    '--add')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_qbt_search_plugins() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|install|uninstall|enable|disable|update)
        # Offer subcommand argument completions
        "_qbt_search_plugins_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list install uninstall enable disable update' -- "${cur}"))
        ;;
    esac
}

_qbt_search_plugins_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_search_plugins_install() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_search_plugins_uninstall() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_search_plugins_enable() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_search_plugins_disable() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_search_plugins_update() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_rss() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    feeds|add|remove|refresh|articles|rules|matching)
        # Offer subcommand argument completions
        "_qbt_rss_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'feeds add remove refresh articles rules matching' -- "${cur}"))
        ;;
    esac
}

_qbt_rss_feeds() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_rss_add() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --path)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--path')
        return
        ;;
    esac
}

_qbt_rss_remove() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_rss_refresh() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --wait)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_qbt_rss_articles() {
    repeating_flags=()
    non_repeating_flags=(--json --unread --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --limit)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--limit')
        return
        ;;
    esac
}

_qbt_rss_rules() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|add|remove)
        # Offer subcommand argument completions
        "_qbt_rss_rules_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list add remove' -- "${cur}"))
        ;;
    esac
}

_qbt_rss_rules_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_rss_rules_add() {
    repeating_flags=()
    non_repeating_flags=(--json --regex --smart --stopped --disabled --version -h --help)
    repeating_options=(--feed --tag)
    non_repeating_options=(--server --url --ca-cert --must-contain --must-not-contain --episode-filter --category --save-path --ignore-days)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--must-contain')
        return
        ;;
    '--must-not-contain')
        return
        ;;
    '--episode-filter')
        return
        ;;
    '--feed')
        return
        ;;
    '--category')
        return
        ;;
    '--tag')
        return
        ;;
    '--save-path')
        return
        ;;
    '--ignore-days')
        return
        ;;
    esac
}

_qbt_rss_rules_remove() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_rss_matching() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_stream() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    play|list|stop)
        # Offer subcommand argument completions
        "_qbt_stream_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'play list stop' -- "${cur}"))
        ;;
    esac
}

_qbt_stream_play() {
    repeating_flags=()
    non_repeating_flags=(--json --play --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --file-index --title --network-mbps --player)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--file-index')
        return
        ;;
    '--title')
        return
        ;;
    '--network-mbps')
        return
        ;;
    '--player')
        return
        ;;
    esac
}

_qbt_stream_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_stream_stop() {
    repeating_flags=()
    non_repeating_flags=(--json --all --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_upload() {
    repeating_flags=()
    non_repeating_flags=(--json --overwrite --resume --torrent --private --version -h --help)
    repeating_options=(--tracker)
    non_repeating_options=(--server --url --ca-cert --to --category -c --chunk-size)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--to')
        return
        ;;
    '--category'|'-c')
        return
        ;;
    '--chunk-size')
        return
        ;;
    '--tracker')
        return
        ;;
    esac
}

_qbt_music() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    key|sync|tracks|albums|search|download|downloads)
        # Offer subcommand argument completions
        "_qbt_music_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'key sync tracks albums search download downloads' -- "${cur}"))
        ;;
    esac
}

_qbt_music_key() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_sync() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_tracks() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --album --playlist)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--album')
        return
        ;;
    '--playlist')
        return
        ;;
    esac
}

_qbt_music_albums() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_search() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_download() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --album --playlist --dir)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--album')
        return
        ;;
    '--playlist')
        return
        ;;
    '--dir')
        return
        ;;
    esac
}

_qbt_music_downloads() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|pause|resume|cancel)
        # Offer subcommand argument completions
        "_qbt_music_downloads_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list pause resume cancel' -- "${cur}"))
        ;;
    esac
}

_qbt_music_downloads_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_downloads_pause() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 1
}

_qbt_music_downloads_resume() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_music_downloads_cancel() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 1
}

_qbt_keys() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|create|revoke)
        # Offer subcommand argument completions
        "_qbt_keys_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list create revoke' -- "${cur}"))
        ;;
    esac
}

_qbt_keys_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_keys_create() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --scope --key)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--scope')
        return
        ;;
    '--key')
        return
        ;;
    esac
}

_qbt_keys_revoke() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_app() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_transfer() {
    repeating_flags=()
    non_repeating_flags=(--json --toggle-alt-speed --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --download-limit --upload-limit)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--download-limit')
        return
        ;;
    '--upload-limit')
        return
        ;;
    esac
}

_qbt_log() {
    repeating_flags=()
    non_repeating_flags=(--json --follow --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert --since --level --last --count)
    __qbt_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    '--since')
        return
        ;;
    '--level')
        return
        ;;
    '--last')
        return
        ;;
    '--count')
        return
        ;;
    esac
}

_qbt_prefs() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    get|set)
        # Offer subcommand argument completions
        "_qbt_prefs_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'get set' -- "${cur}"))
        ;;
    esac
}

_qbt_prefs_get() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_prefs_set() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--server --url --ca-cert)
    __qbt_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--url')
        return
        ;;
    '--ca-cert')
        return
        ;;
    esac
}

_qbt_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __qbt_offer_flags_options -1
}

complete -o filenames -F _qbt qbt
