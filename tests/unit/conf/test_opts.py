"""Tests of the option listing and of the library defaults cinder_ma
changes."""

from oslo_config import cfg
import testtools

from cinder_ma.conf import opts


class TestSetDefaults(testtools.TestCase):

    def test_durable_rabbit_queues_by_default(self):
        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        conf([])
        self.assertTrue(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_a_config_file_still_wins(self):
        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        conf([])
        conf.set_override('amqp_durable_queues', False,
                          group='oslo_messaging_rabbit')
        self.assertFalse(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_oslo_messaging_registers_the_same_options_later(self):
        from oslo_messaging import opts as messaging_opts

        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        for group, group_opts in messaging_opts.list_opts():
            # No DuplicateOptError: the same definitions.
            conf.register_opts(group_opts, group=group)
        conf([])
        self.assertTrue(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_healthcheck_group_listed_with_our_defaults(self):
        groups = dict(opts.list_opts())
        names = {o.name: o for o in groups['healthcheck']}
        self.assertEqual(['disable_by_file'], names['backends'].default)
        self.assertEqual('$state_path/healthcheck_disable',
                         names['disable_by_file_path'].default)
