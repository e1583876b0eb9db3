"""The rule systems' plug-ins, one package each (rolls.plugins says what a plug-in gives;
rolls.registry lists the installed ones and loads them). Nothing in the shared roll path
imports these packages: it asks the registry for the session's system."""
