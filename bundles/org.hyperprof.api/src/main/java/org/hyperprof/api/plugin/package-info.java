/**
 * What a plug-in is known by: {@link org.hyperprof.api.plugin.PluginIdentity}, the one reading of
 * a plug-in's identity from the service property of its kind.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.api.plugin;
