/** Tools from annotated methods and typed handlers: schemas generated from Java types, arguments bound with Jackson. */
@NullMarked
package dev.rcrt.tools.internal.annotated;

import org.jspecify.annotations.NullMarked;
