"""Atomic action names: the one place reports, SLAs and comparisons key on."""

CREATE_TOKEN = "keystone.create_token"
VALIDATE_TOKEN = "keystone.validate_token"
LIST_PROJECTS = "keystone.list_projects"
CREATE_USER = "keystone.create_user"
DELETE_USER = "keystone.delete_user"

ALL = (CREATE_TOKEN, VALIDATE_TOKEN, LIST_PROJECTS, CREATE_USER, DELETE_USER)
