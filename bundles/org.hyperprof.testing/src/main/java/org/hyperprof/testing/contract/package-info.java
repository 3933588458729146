/**
 * Contract tests a plug-in's own tests extend: {@link org.hyperprof.testing.contract.ConsumerContract}
 * for sample consumers that render what they collect, {@link org.hyperprof.testing.contract.SourceContract}
 * for sample sources. Each rule is the SPI's javadoc made executable.
 */
package org.hyperprof.testing.contract;
