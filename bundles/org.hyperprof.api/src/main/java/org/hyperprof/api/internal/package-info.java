/**
 * What the API's own types need and no other bundle may use: the escaping of invisible characters
 * in the messages of the input, scenario, symbol-file and source-format exceptions
 * ({@link org.hyperprof.api.internal.VisibleText}), so that every such message, also one a third
 * party's source throws, shows what the file really holds. Not exported: a change here is no API
 * change.
 */
package org.hyperprof.api.internal;
