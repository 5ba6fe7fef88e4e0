-- Tag searches (a session's messages, a run's records, the tools of a schema) read the tags' GIN
-- index. With GIN's default fastupdate, new entries wait in a pending list that every search scans
-- in full until a vacuum merges it: on a store written all the time, a session search took 1.4 ms
-- where the index itself answers in 0.2 ms (DurableTurnLoad, 2,000 turns). Entries now go straight
-- into the index; the list already there is merged now. The context index keeps its pending list:
-- a record's context has many entries, and writing them at once made each create 50% dearer, while
-- context searches (a tool by name) stayed at 0.03 ms.
ALTER INDEX breadcrumbs_tags SET (fastupdate = off);
SELECT gin_clean_pending_list('breadcrumbs_tags'::regclass);
