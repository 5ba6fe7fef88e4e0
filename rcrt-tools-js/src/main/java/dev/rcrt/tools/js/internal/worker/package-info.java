/**
 * The JavaScript worker: the program that runs in a worker process of its own ({@link
 * dev.rcrt.tools.js.internal.worker.JsWorkerMain}), evaluating tool code in GraalJS, one call
 * at a time, each in a fresh context, and asking the host, over its standard streams, for whatever
 * touches the outside (the store, {@code fetch}). Implementation detail of rcrt-tools-js. Not API: may
 * change in any release.
 */
@NullMarked
package dev.rcrt.tools.js.internal.worker;

import org.jspecify.annotations.NullMarked;
