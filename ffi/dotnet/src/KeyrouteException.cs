using System;

namespace Keyroute
{
    /// <summary>
    /// A failed keyroute call: its stable <see cref="Code"/> and the library's message (for
    /// people; the code is the contract). Every failure the library reports is raised as the
    /// subclass of its kind (<see cref="InvalidSpecException"/>, <see cref="EmptyTopologyException"/>,
    /// …, generated from the error table), so callers catch a kind by its class or any failure by
    /// this base class.
    /// </summary>
    public partial class KeyrouteException : Exception
    {
        /// <summary>
        /// A failure of kind <paramref name="code"/> with <paramref name="message"/>.
        /// </summary>
        public KeyrouteException(ErrorCode code, string message)
            : base(Format(code, message))
        {
            Code = code;
            Detail = message ?? "";
        }

        /// <summary>
        /// The kind of failure: its stable numeric code.
        /// </summary>
        public ErrorCode Code { get; private set; }

        /// <summary>
        /// The kind's stable snake_case name (<c>"invalid_spec"</c>), as vector files write it.
        /// </summary>
        public string CodeName { get { return ErrorCodes.Name(Code); } }

        /// <summary>
        /// The kind's category: <c>value</c>, <c>range</c>, <c>lookup</c>, <c>type</c>,
        /// <c>io</c>, <c>memory</c> or <c>internal</c>.
        /// </summary>
        public string Category { get { return ErrorCodes.Category(Code); } }

        /// <summary>
        /// The library's message for this failure, without the code (<see cref="Exception.Message"/>
        /// is <c>"keyroute: NAME (CODE): DETAIL"</c>).
        /// </summary>
        public string Detail { get; private set; }

        static string Format(ErrorCode code, string message)
        {
            string head = "keyroute: " + ErrorCodes.Name(code) + " (" + (uint)code + ")";
            return string.IsNullOrEmpty(message) ? head : head + ": " + message;
        }
    }

    /// <summary>
    /// The error table by code: every code's name, category and description (the rows are
    /// generated from keyroute's one error table).
    /// </summary>
    public static partial class ErrorCodes
    {
        struct Row
        {
            public readonly ErrorCode Code;
            public readonly string Name, Category, Description;

            public Row(ErrorCode code, string name, string category, string description)
            {
                Code = code;
                Name = name;
                Category = category;
                Description = description;
            }
        }

        /// <summary>
        /// Every code of the error table, in its order.
        /// </summary>
        public static ErrorCode[] All
        {
            get
            {
                var all = new ErrorCode[Table.Length];
                for (int i = 0; i < Table.Length; i++)
                    all[i] = Table[i].Code;
                return all;
            }
        }

        /// <summary>
        /// The code's stable snake_case name; <c>"unknown"</c> for a number that is no code.
        /// </summary>
        public static string Name(ErrorCode code) { return Find(code).Name ?? "unknown"; }

        /// <summary>
        /// The code's category (<c>value</c>, <c>range</c>, …); <c>""</c> for a number that is
        /// no code.
        /// </summary>
        public static string Category(ErrorCode code) { return Find(code).Category ?? ""; }

        /// <summary>
        /// What the code means; <c>""</c> for a number that is no code.
        /// </summary>
        public static string Description(ErrorCode code) { return Find(code).Description ?? ""; }

        static Row Find(ErrorCode code)
        {
            foreach (var row in Table)
                if (row.Code == code)
                    return row;
            return default(Row);
        }
    }
}
