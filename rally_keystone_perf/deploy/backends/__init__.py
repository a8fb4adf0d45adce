"""Keystone's backends, one module each, started by :func:`.startup.start`.

MariaDB (:mod:`.mariadb`) and its Galera cluster (:mod:`.galera`,
:mod:`.galera_recovery`), PostgreSQL (:mod:`.postgresql`), OpenLDAP's slapd
(:mod:`.ldap`), memcached (:mod:`.memcached`) and the nova-fake stack's
RabbitMQ (:mod:`.rabbitmq`): Debian's programs run as the run's own
children, data and logs in the run folder, never the system services.
:func:`.startup.start` picks the ones a run's Keystone is configured to use.
"""
