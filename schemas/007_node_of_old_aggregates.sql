-- 007_node_of_old_aggregates.sql - the node of the aggregates that 006
-- could only give to the local host.  Before 006 the aggregates had no
-- node, though the processes had one (005): a store of a central log
-- (node=NAME on every record) came out of 006 with each host's
-- aggregates under the local host ('').  A round whose processes all
-- carry one node name, and whose aggregates are all the local host's,
-- can only have been that host's: its aggregates get that name.  A round
-- that mixed hosts cannot be split and stays as 006 left it
-- (docs/schema.md).  Rounds written from 006 on never match: their
-- aggregates carry the node of their processes already.
UPDATE aggregates SET node = (
        SELECT min(p.node) FROM processes p
        WHERE p.round_id = aggregates.round_id)
    WHERE node = ''
      AND round_id IN (
        SELECT round_id FROM processes GROUP BY round_id
        HAVING count(DISTINCT node) = 1 AND min(node) <> '')
      AND NOT EXISTS (
        SELECT 1 FROM aggregates a2
        WHERE a2.round_id = aggregates.round_id AND a2.node <> '');
