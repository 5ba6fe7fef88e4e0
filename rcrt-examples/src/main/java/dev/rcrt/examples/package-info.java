/** Runnable examples for library users; the README's snippets are cut from these files. */
@NullMarked
package dev.rcrt.examples;

import org.jspecify.annotations.NullMarked;
