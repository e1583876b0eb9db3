"""The demo's main session, "Mgły nad Czarnym Brodem" (forum1000): a roll of every tab,
requests in every state, NPCs, entries, free-form and secret rolls, table talk, unread
posts and words to search for; each a scene of its own module, played in order by
`demo.ford.session.seed_ford`."""
