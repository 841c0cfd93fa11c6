-- Sessions are updated in batches (sessions/touches.ts: each flush moves "last used" of every session refreshed in
-- the last second, often several on one page). Pages filled to the brim leave no room for the new row versions on
-- the same page, so those updates cannot be HOT and add an entry to each of the table's three indexes; with 30%
-- of each page kept free they stay on the page (bench: 9,000 of 9,000 HOT at 50%, 1,152 of 9,500 at 100%, and
-- ~5% more refreshes a second at 70%). Pages written before this keep their layout until they are rewritten.
ALTER TABLE "sessions" SET (fillfactor = 70);
