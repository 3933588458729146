/**
 * The one grammar of Hyperprof's commands. A command is written as a {@link
 * org.hyperprof.command.kit.Syntax}: its name, summary, positional words and {@link
 * org.hyperprof.command.kit.Option}s, each with its value, help and what completes it. The parser
 * ({@link org.hyperprof.command.kit.Args}), the usage line, {@code hp:<command> --help}, the hint
 * for the other option style and Gogo's {@code @Descriptor} check all come from that one table, and
 * {@link org.hyperprof.command.kit.Guard} runs a command body so that a failure is one message on
 * stderr and a {@link org.hyperprof.api.command.CommandFailure} with its exit status. A listing
 * prints through {@link org.hyperprof.command.kit.Table}: aligned text, or JSON or CSV for scripts
 * ({@code --format text|json|csv}), the same in every bundle.
 *
 * <p>Not exported and never deployed: each bundle with commands carries its own copy of this
 * package (bnd {@code -conditionalpackage}); what crosses bundles is the API's
 * {@code CommandFailure}.
 */
package org.hyperprof.command.kit;
