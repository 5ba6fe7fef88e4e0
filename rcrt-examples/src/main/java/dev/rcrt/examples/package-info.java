/** Runnable examples for library users; the reference pages' snippets (docs/reference) are cut from these files. */
@NullMarked
package dev.rcrt.examples;

import org.jspecify.annotations.NullMarked;
