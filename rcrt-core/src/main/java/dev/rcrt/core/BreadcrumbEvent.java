package dev.rcrt.core;

import java.util.Objects;

/**
 * A committed change to a breadcrumb, as delivered to subscribers.
 *
 * @param type what happened
 * @param breadcrumb the record after the write; for {@link Type#DELETED}, the last stored version
 */
public record BreadcrumbEvent(Type type, Breadcrumb breadcrumb) {

  /** Validates required fields. */
  public BreadcrumbEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(breadcrumb, "breadcrumb");
  }

  /** The kind of change. */
  public enum Type {
    /** A new record (version 1). */
    CREATED,
    /** A new version of an existing record. */
    UPDATED,
    /** The record was deleted; the event carries its last version. */
    DELETED
  }
}
