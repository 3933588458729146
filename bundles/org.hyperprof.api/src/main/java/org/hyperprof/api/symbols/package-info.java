// Resolver bundles implement SymbolResolver (@ConsumerType): they import this package at [2.0,3).
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.hyperprof.api.symbols;
