namespace Keyroute
{
    /// <summary>
    /// What one built router supports (<see cref="Router.Capabilities"/>).
    /// </summary>
    public sealed class Capabilities
    {
        static readonly string[] WeightNames = { "honoured", "refused", "ignored" };
        static readonly string[] MethodNames = { "exact", "slot_share", "expected", "sampled" };

        internal Capabilities(NativeCapabilities c)
        {
            Weights = c.Weights < WeightNames.Length ? WeightNames[c.Weights] : "unknown";
            Analysis = c.Analysis < MethodNames.Length ? MethodNames[c.Analysis] : "unknown";
            SampleKeys = (int)c.SampleKeys;
            Slots = (int)c.Slots;
            PointsPerWeight = (int)c.PointsPerWeight;
            Replicas = c.Replicas != 0;
            RouteHash = c.RouteHash != 0;
            Rebalance = c.Rebalance != 0;
        }

        /// <summary>
        /// What it does with node weights: <c>honoured</c>, <c>refused</c> (unequal weights
        /// fail the build) or <c>ignored</c> (an explicit slot table).
        /// </summary>
        public string Weights { get; private set; }

        /// <summary>
        /// How ownership figures are obtained: <c>exact</c>, <c>slot_share</c>, <c>expected</c>
        /// or <c>sampled</c>.
        /// </summary>
        public string Analysis { get; private set; }

        /// <summary>
        /// The sample keys routed when <see cref="Analysis"/> is <c>sampled</c>; else 0.
        /// </summary>
        public int SampleKeys { get; private set; }

        /// <summary>
        /// The slot count of a router built on a slot table (<see cref="Router.Slot(byte[])"/>);
        /// 0 for the others.
        /// </summary>
        public int Slots { get; private set; }

        /// <summary>
        /// Points per unit of weight of a native ring; 0 for the others.
        /// </summary>
        public int PointsPerWeight { get; private set; }

        /// <summary>
        /// Whether it defines a replica order (<see cref="Router.Replicas(byte[], int)"/>,
        /// <see cref="Router.Spread(byte[], int, ulong)"/>).
        /// </summary>
        public bool Replicas { get; private set; }

        /// <summary>
        /// Whether it routes on one 64-bit key hash (<see cref="Router.KeyHash"/>,
        /// <see cref="Router.RouteHash"/>).
        /// </summary>
        public bool RouteHash { get; private set; }

        /// <summary>
        /// Whether it can move a slot table to a new topology with the fewest moves.
        /// </summary>
        public bool Rebalance { get; private set; }
    }
}
